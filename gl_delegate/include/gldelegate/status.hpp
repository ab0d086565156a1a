// Status and StatusOr<T>: errors are values in gldelegate; no exception crosses
// the public API. A message says what was wrong and where (op index, op name,
// tensor name, the offending value).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "gldelegate/export.h"

namespace gld {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,    // bad input: malformed model, bad option, wrong size
  kNotFound,           // missing file, unknown tensor name
  kUnimplemented,      // op or feature we do not support
  kFailedPrecondition, // API used in the wrong order
  kUnavailable,        // GL / EGL not available
  kDataLoss,           // corrupt cache or model file contents
  kOutOfRange,         // index out of range
  kInternal,           // a bug in gldelegate or the driver
  kCancelled,          // an invoke ended by Interpreter::Cancel
};

GLD_EXPORT const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "INVALID_ARGUMENT: message"
  GLD_EXPORT std::string ToString() const;
  // Returns a copy whose message is "<context>: <message>".
  GLD_EXPORT Status WithContext(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
inline Status InvalidArgumentError(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status NotFoundError(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status UnimplementedError(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
inline Status FailedPreconditionError(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
inline Status UnavailableError(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status DataLossError(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
inline Status OutOfRangeError(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
inline Status InternalError(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
inline Status CancelledError(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    if (status_.ok()) status_ = InternalError("StatusOr constructed from an OK status without a value");
  }
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace gld

#define GLD_STATUS_CONCAT_INNER(a, b) a##b
#define GLD_STATUS_CONCAT(a, b) GLD_STATUS_CONCAT_INNER(a, b)

#define GLD_RETURN_IF_ERROR(expr)                 \
  do {                                            \
    ::gld::Status gld_status_tmp_ = (expr);       \
    if (!gld_status_tmp_.ok()) return gld_status_tmp_; \
  } while (0)

#define GLD_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()

#define GLD_ASSIGN_OR_RETURN(lhs, expr) \
  GLD_ASSIGN_OR_RETURN_IMPL(GLD_STATUS_CONCAT(gld_statusor_, __LINE__), lhs, expr)
