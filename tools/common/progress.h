// Progress on a terminal for the long-running tools (gld_benchmark's runs,
// gld_run's and gld_inspect's interpreter creation while programs compile
// cold), as gld_warmup shows it: only when stderr is a terminal, one line on
// stderr rewritten in place and erased when done. Through a pipe or a file
// (tests, CI logs) nothing is written, so the output stays as it was.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "gldelegate/gldelegate.hpp"

namespace gld::tools {

class TerminalProgress {
 public:
  TerminalProgress();  // active when stderr is a terminal
  ~TerminalProgress();  // erases the line
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;

  bool active() const { return tty_; }
  // Draws "[####......] <text>" for `fraction` in [0, 1], or a turning
  // spinner before <text> when the fraction is unknown (< 0). At most ten
  // times a second unless `force`.
  void Show(double fraction, const std::string& text, bool force = false);
  // Erases the line (a later Show draws it again).
  void Clear();

 private:
  bool tty_;
  bool drawn_ = false;
  int turn_ = 0;
  std::chrono::steady_clock::time_point last_{};
};

// gld::Interpreter::Create with, on a terminal, a line saying that it is
// still at work ("creating the interpreter (compiling GPU programs): 12 s")
// after the first second; the call runs on a worker thread meanwhile (the
// interpreter's private GL context is current only inside its calls).
// Without a terminal it is Create itself, on this thread.
// `signature`: the key of the signature to run (Interpreter::Create with a
// key); empty for the model's first.
StatusOr<std::unique_ptr<Interpreter>> CreateWithProgress(const Model& model, const Options& options,
                                                          const std::string& signature = {});

}  // namespace gld::tools
