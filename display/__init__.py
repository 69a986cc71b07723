"""The pygame scoreboard client; talks to the daemon only through MQTT."""
