switch("gc", "orc")
switch("threads", "on")
switch("path", "..")
