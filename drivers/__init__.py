"""Board I/O: the wire protocol, serial, USB, simulated and keyboard sources."""
