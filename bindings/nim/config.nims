# linesig's Nim module and programs: ORC frees engines and keys at scope exit (their
# `=destroy` hooks); threads on for the engine's callers.
switch("gc", "orc")
switch("threads", "on")
