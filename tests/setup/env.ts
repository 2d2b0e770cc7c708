import { TEST_KEY } from "../helpers/key";

// Every test file starts with a configured key; tests about a missing key unset it.
process.env.LEADS_API_KEY = TEST_KEY;
// In-process route calls would print one access log line each; servers started by
// tests/helpers/server.ts turn it back on (their output is captured, not printed).
process.env.LEADS_ACCESS_LOG = "off";
