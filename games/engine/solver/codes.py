"""The answers of the searches and of the compiled kernels, one code each, shared by the
pure-Python reference and the kernels (``kernels/``)."""

#: the kernel's answers: lost, clearable, given up (more than ``effort`` steps or the stops allowed),
#: and a search's win
LOST, CLEARABLE, GAVE_UP, WON = 0, 1, 2, 3
#: the answer of a kernel search that would need more frames than it was given (never: the frames
#: are as many as the longest line can need); the search then walks that stretch in Python
TOO_DEEP = 9
