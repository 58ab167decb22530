// The bench's gateway with x402 on, on the local chain npm start runs (import before bench-env).
process.env.X402_NETWORK = "local";
