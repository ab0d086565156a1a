// What the runtime lends the CPU kernels whose work reaches beyond their
// node (KernelContext::model): control flow (WHILE, IF, CALL_ONCE) runs other
// subgraphs of the model, and resource variables (VAR_HANDLE, READ_VARIABLE,
// ASSIGN_VARIABLE) keep state across invokes. cpu_kernels/ declares the seam;
// the runtime implements it (runtime/subgraph_runner.h), so the kernels stay
// below the runtime.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cpu_kernels/kernel_interface.h"
#include "gldelegate/status.hpp"

namespace gld::cpu {

// A subgraph of the model made ready to run for a control-flow node, once:
// its own steps, host memory and prepared kernels (XNNPACK operators, packed
// weights). Running it allocates nothing.
class PreparedSubgraph {
 public:
  virtual ~PreparedSubgraph() = default;
  // "subgraph 2 ('while_body')".
  virtual const std::string& label() const = 0;
  virtual size_t num_inputs() const = 0;
  virtual size_t num_outputs() const = 0;
  // Host storage of its graph inputs (the caller writes them before Invoke)
  // and outputs (valid after Invoke).
  virtual TensorData& input(size_t i) = 0;
  virtual const TensorData& output(size_t i) const = 0;
  virtual Status Invoke() = 0;
};

// An interpreter's resource variables, shared by all its subgraphs. A
// variable is named by (container, shared_name) and known by the int32 id a
// VAR_HANDLE writes; it has no value until assigned. Not thread-safe: an
// interpreter runs on one thread at a time.
class ResourceVariables {
 public:
  // The id of the variable so named; the same name always gives the same id.
  int32_t Handle(const std::string& container, const std::string& shared_name);
  // "variable 0 ('counter')"; "variable 7" when no handle made id 7.
  std::string Label(int32_t id) const;
  // The variable's value; nullptr when `id` names none or it has no value.
  const TensorData* Value(int32_t id) const;
  // Sets variable `id` to a copy of `value` (its type and shape too). Its
  // storage is reallocated only when the value needs more bytes.
  Status Assign(int32_t id, const TensorData& value);
  // Every variable loses its value (ids stay), as in a fresh interpreter;
  // CALL_ONCE runs its init subgraph again on the next invoke.
  void Reset();
  // Counts Reset calls: a CALL_ONCE runs when this differs from the count it
  // last ran under.
  uint64_t generation() const { return generation_; }

 private:
  struct Variable {
    std::string container, shared_name;
    TensorData value;
    std::vector<uint8_t> storage;
    bool assigned = false;
  };
  std::vector<Variable> variables_;
  uint64_t generation_ = 0;
};

// The status of an invoke that Interpreter::Cancel ended, `where` saying
// where it stopped ("before node 3 (ADD) (step 2 of 5)").
inline Status InvokeCancelled(const std::string& where) {
  return CancelledError("invoke cancelled (Interpreter::Cancel) " + where);
}

class ModelServices {
 public:
  virtual ~ModelServices() = default;
  // Subgraph `index` of the model prepared to run with inputs of these types
  // and shapes (the caller's tensors). Errors name the subgraph.
  virtual StatusOr<std::unique_ptr<PreparedSubgraph>> PrepareSubgraph(
      int index, const std::vector<const TensorData*>& inputs) = 0;
  virtual ResourceVariables& variables() = 0;
  // Options::max_loop_iterations: a WHILE that runs its body this often
  // without its condition turning false fails.
  virtual int64_t max_loop_iterations() const = 0;
  // Interpreter::Cancel asked to end the invoke running now (the runtime's
  // flag, set from any thread): a WHILE checks it every iteration, a
  // runtime before every step.
  bool cancel_requested() const { return cancel_ != nullptr && cancel_->load(std::memory_order_relaxed); }
  void set_cancel_flag(const std::atomic<bool>* flag) { cancel_ = flag; }

 private:
  const std::atomic<bool>* cancel_ = nullptr;
};

}  // namespace gld::cpu
