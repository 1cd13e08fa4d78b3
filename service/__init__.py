"""The chat service: turns chat updates into engine actions and engine state into
screens. Stateless: everything lives in Redis, so any copy can serve any update."""
