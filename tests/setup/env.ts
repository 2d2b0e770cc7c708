// Every test file starts with a configured key; tests about a missing key unset it.
process.env.LEADS_API_KEY = "test-key-0123456789";
