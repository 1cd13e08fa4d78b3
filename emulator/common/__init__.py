"""What the local Telegram (emulator/telegram/) and the local WhatsApp
(emulator/whatsapp/) share: the server thread, the web chat's event bus, files kept
across restarts, the control APIs' plumbing and their Python clients, and TLS."""
