// One caller at a time: an object that is documented as not safe for
// concurrent use (an Interpreter) refuses a second thread that enters while
// another is inside, instead of letting both corrupt its state. Used by the
// runtime around SetInput, Invoke, InvokeAsync and GetOutput, on both
// backends, so a misuse gets the same error on either. (The GL backend
// alone used to catch it, late, through EGL: a context current on another
// thread makes eglMakeCurrent fail with EGL_BAD_ACCESS; that check stays
// for contexts an application shares.)
#pragma once

#include <atomic>
#include <string>

#include "gldelegate/status.hpp"

namespace gld {

// The text of the error a second concurrent caller gets.
inline constexpr const char* kInUseOnAnotherThread =
    "the Interpreter is in use on another thread (Invoke, SetInput and GetOutput of one Interpreter must not "
    "run concurrently; use one thread at a time, or one Interpreter per thread)";

class SingleUser {
 public:
  // Holds the object for one call; ok() is false when another thread held
  // it already (then nothing is held, and status() is the error).
  class Hold {
   public:
    Hold(const SingleUser& owner, const char* call)
        : owner_(owner), held_(!owner.busy_.exchange(true, std::memory_order_acquire)), call_(call) {}
    ~Hold() {
      if (held_) owner_.busy_.store(false, std::memory_order_release);
    }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
    bool ok() const { return held_; }
    Status status() const {
      return held_ ? OkStatus() : FailedPreconditionError(std::string(call_) + ": " + kInUseOnAnotherThread);
    }

   private:
    const SingleUser& owner_;
    const bool held_;
    const char* call_;
  };

 private:
  mutable std::atomic<bool> busy_{false};
};

}  // namespace gld

// Returns the error from the enclosing function when another thread is
// inside `owner` (a SingleUser); otherwise holds it until the scope ends.
#define GLD_HOLD_SINGLE_USER(owner, call)               \
  ::gld::SingleUser::Hold gld_single_user_hold_(owner, call); \
  if (!gld_single_user_hold_.ok()) return gld_single_user_hold_.status()
