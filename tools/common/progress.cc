#include "common/progress.h"

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace gld::tools {

TerminalProgress::TerminalProgress() : tty_(isatty(STDERR_FILENO) == 1) {}

TerminalProgress::~TerminalProgress() { Clear(); }

void TerminalProgress::Show(double fraction, const std::string& text, bool force) {
  if (!tty_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  std::string line;
  if (fraction >= 0) {
    const int width = 30;
    const int filled = static_cast<int>(std::min(fraction, 1.0) * width);
    line = "[" + std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(width - filled), '.') +
           "] ";
  } else {
    static const char kTurn[] = "|/-\\";
    line = std::string(1, kTurn[turn_++ % 4]) + " ";
  }
  line += text;
  // \033[K erases what a longer earlier line left on the right.
  std::fprintf(stderr, "\r%s\033[K", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void TerminalProgress::Clear() {
  if (!tty_ || !drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

StatusOr<std::unique_ptr<Interpreter>> CreateWithProgress(const Model& model, const Options& options,
                                                          const std::string& signature) {
  auto create = [&] {
    return signature.empty() ? Interpreter::Create(model, options) : Interpreter::Create(model, options, signature);
  };
  TerminalProgress progress;
  // An app's current context belongs to this thread: only a private one
  // may be made on another.
  if (!progress.active() || options.context != ContextMode::kPrivate) return create();
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  StatusOr<std::unique_ptr<Interpreter>> result = InternalError("not created");
  std::thread worker([&] {
    auto created = create();
    std::lock_guard<std::mutex> lock(mutex);
    result = std::move(created);
    done = true;
    done_cv.notify_one();
  });
  const auto start = std::chrono::steady_clock::now();
  {
    std::unique_lock<std::mutex> lock(mutex);
    while (!done_cv.wait_for(lock, std::chrono::milliseconds(250), [&] { return done; })) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (seconds < 1.0) continue;
      char text[128];
      std::snprintf(text, sizeof(text), "creating the interpreter (GPU programs compile on a cold cache): %.0f s",
                    seconds);
      progress.Show(-1, text, true);
    }
  }
  worker.join();
  progress.Clear();
  return result;
}

}  // namespace gld::tools
