// Text from a model (tensor, op, signature and subgraph names, the
// description, messages that quote them) as the tools print it: a name may
// hold any bytes, and a raw ESC or C1 control sent to a terminal moves the
// cursor, clears the screen or sets the window title.
#pragma once

#include <string>

namespace gld::tools {

// `text` with every control character escaped: C0 controls and DEL as
// "\xNN" ("\n", "\r" and "\t" as such), C1 controls (U+0080..U+009F) as
// "\u0085", and each byte that is not part of valid UTF-8 as "\xNN". Other
// text, backslashes included, is kept as it is.
std::string Printable(const std::string& text);

// Escapes, as Printable does but keeping "\n" and "\t", everything the
// process writes through std::cout, std::cerr and std::clog from now on.
// Each tool's main calls it first. Writes go on at once (in order with
// printf); only a UTF-8 sequence cut by the end of one write waits for the
// next write or a flush. Idempotent.
void EscapeStandardStreams();

}  // namespace gld::tools
