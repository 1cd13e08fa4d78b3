"""The workers: their jobs, outbox and runtime, on fakeredis and a fake chat API."""
