export const MALFORMED_REQUEST: { readonly status: 400; readonly message: string; readonly when: string };
