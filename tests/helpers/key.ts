/** The key every test server and in-process call uses: as long as lib/api/api-key.mjs requires, and more. */
export const TEST_KEY = "test-key-0123456789-0123456789-0123456789";
