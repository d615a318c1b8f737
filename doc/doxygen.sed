# SPDX-License-Identifier: MIT
# Doxygen's input filter for include/sqfs/*.h (doc/Doxyfile.in): the
# headers describe each item in a plain comment right before it; make
# those comments doxygen comments, so that the reference carries them.
# Line numbers stay as they are.
#
# the licence line is no description
1s|^/\* SPDX-License-Identifier:.*\*/$||
# the comment that opens the file describes the file
2s|^/\*$|/** \\file|
# every other comment that starts a line describes what follows it
s|^\([[:space:]]*\)/\*\([[:space:]]\)|\1/**\2|
s|^\([[:space:]]*\)/\*$|\1/**|
