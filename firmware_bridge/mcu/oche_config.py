"""Oche board firmware: the settings of this board. Edit this file only.

`oche firmware install` copies it to the board the first time and then keeps
the board's copy (so your edits survive updates) unless you pass
--overwrite-config. After editing it, copy it yourself:
    mpremote connect /dev/ttyACM0 fs cp oche_config.py :oche_config.py + reset
"""

# --- Wiring --------------------------------------------------------------
# GPIO numbers, in order: row 0 first, column 0 first. The matrix is
# len(row_pins) x len(col_pins) cells; cell (row, col) is what `oche monitor`
# shows and what the matrix map (docs/protocol.md) names. Every pin gets the
# chip's internal pull-up; a contact connects one row line to one column line.
#
# Raspberry Pi Pico (RP2040): any of GP0-GP22 and GP26-GP28. The defaults
# leave GP0/GP1 (UART0) and GP20-GP22 free.
#
# ESP32: use 4, 13, 14, 16-19, 21-23, 25-27, 32, 33 (16 and 17 not on
# WROVER modules). Not GPIO34-39 (input only, no pull-ups), not GPIO6-11
# (flash), not 1 and 3 (the USB serial line); the strapping pins 0, 2, 5, 12
# and 15 only if you must. For example, 7 rows by 8 columns:
#     row_pins = (13, 14, 16, 17, 18, 19, 21)
#     col_pins = (22, 23, 25, 26, 27, 32, 33, 4)
row_pins = (2, 3, 4, 5, 6, 7, 8, 9)
col_pins = (10, 11, 12, 13, 14, 15, 16, 17, 18, 19)

# Dedicated buttons outside the matrix (each between a GPIO and ground), in
# order: button 0 first, at most 16. They are sent as B frames; name them in
# the matrix map's [buttons] table. Empty when the board has none.
button_pins = ()

# Coin mechanisms (at most 2): the GPIO of each one's pulse output, coin
# input 1 first. Each pin gets the internal pull-up; a mechanism with an
# open-collector output (most) pulls it to ground for each pulse. Empty when
# the board takes no coins. For example: coin_pins = (20, 21)
coin_pins = ()

# True when a pulse pulls the line low (open collector, the usual wiring);
# False for a mechanism whose line is low at rest and high during a pulse.
coin_active_low = True

# --- Timing (a host may change the first three at run time; the ranges are
# the settings table of docs/protocol.md)
# After a hit a cell ignores its own changes for this many milliseconds
# (1-250). Longer hides more bounce but merges darts that land on the same
# cell quicker than this.
debounce_ms = 40

# A cell closed this many milliseconds after its hit is reported stuck and
# masked until it opens (250-600000).
stuck_ms = 2000

# Matrix scans per second (100-10000). A dart's contact lasts a few
# milliseconds; 1000 sees every one.
scan_hz = 1000

# Microseconds to wait after driving a row low before reading the columns
# (0-1000). Raise it for long wires.
settle_us = 10

# --- Coin pulse filter (docs/firmware.md#coin-mechanisms)
# A pulse counts when the line stays at its pulse level at least
# coin_min_ms (1-100) ...
coin_min_ms = 10

# ... and at most this many milliseconds (100-2000): a line held longer (a
# jammed mechanism) counts nothing.
coin_max_ms = 150

# Milliseconds the line must rest between two pulses (1-1000): a shorter
# break is bounce inside one pulse.
coin_gap_ms = 20
