"""The server process: configuration, the listener and its HTTP side, metrics, background
task helpers, the store's fault classification and the Redis servers run as child processes."""

