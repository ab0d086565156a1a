#include "util/trace_recorder.h"

#include <unistd.h>

#include <algorithm>
#include <utility>

namespace gld {

TraceRecorder::TraceRecorder() : origin_(Clock::now()), pid_(static_cast<int>(getpid())) {
  TraceEvent process;
  process.phase = 'M';
  process.name = "process_name";
  process.pid = pid_;
  process.args.push_back(Text("name", "gldelegate interpreter"));
  metadata_.push_back(std::move(process));
}

double TraceRecorder::Micros(Clock::time_point t) const {
  return std::chrono::duration<double, std::micro>(t - origin_).count();
}

int TraceRecorder::AddTrackLocked(const std::string& name) {
  const int tid = next_tid_++;
  for (const TraceArg& arg : {Text("name", name), Number("sort_index", tid)}) {
    // The track's name, and its place: the order tracks were made in.
    TraceEvent e;
    e.phase = 'M';
    e.name = arg.is_number ? "thread_sort_index" : "thread_name";
    e.pid = pid_;
    e.tid = tid;
    e.args.push_back(arg);
    metadata_.push_back(std::move(e));
  }
  return tid;
}

int TraceRecorder::ThreadTrack() {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::thread::id id = std::this_thread::get_id();
  auto it = threads_.find(id);
  if (it != threads_.end()) return it->second;
  const int tid = AddTrackLocked("thread " + std::to_string(threads_.size() + 1));
  threads_.emplace(id, tid);
  return tid;
}

int TraceRecorder::NamedTrack(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = named_.find(name);
  if (it != named_.end()) return it->second;
  const int tid = AddTrackLocked(name);
  named_.emplace(name, tid);
  return tid;
}

void TraceRecorder::Complete(std::string name, const char* category, double ts_us, double dur_us, int tid,
                             std::vector<TraceArg> args) {
  TraceEvent e;
  e.phase = 'X';
  e.name = std::move(name);
  e.category = category;
  e.ts_us = ts_us;
  e.dur_us = std::max(dur_us, 0.0);
  e.pid = pid_;
  e.tid = tid;
  e.args = std::move(args);
  std::lock_guard<std::mutex> lock(mutex_);
  events_.push_back(std::move(e));
}

void TraceRecorder::Counter(std::string name, double ts_us, std::vector<TraceArg> series) {
  const int tid = ThreadTrack();
  TraceEvent e;
  e.phase = 'C';
  e.name = std::move(name);
  e.category = "counter";
  e.ts_us = ts_us;
  e.pid = pid_;
  e.tid = tid;
  e.args = std::move(series);
  std::lock_guard<std::mutex> lock(mutex_);
  events_.push_back(std::move(e));
}

void TraceRecorder::EndStartup() {
  std::lock_guard<std::mutex> lock(mutex_);
  startup_events_ = events_.size();
}

void TraceRecorder::ClearRuns() {
  std::lock_guard<std::mutex> lock(mutex_);
  events_.resize(startup_events_);
}

std::vector<TraceEvent> TraceRecorder::Events() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<TraceEvent> sorted = events_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const TraceEvent& a, const TraceEvent& b) {
    if (a.ts_us != b.ts_us) return a.ts_us < b.ts_us;
    return a.dur_us > b.dur_us;
  });
  std::vector<TraceEvent> out = metadata_;
  out.insert(out.end(), std::make_move_iterator(sorted.begin()), std::make_move_iterator(sorted.end()));
  return out;
}

TraceArg TraceRecorder::Text(std::string name, std::string text) {
  TraceArg a;
  a.name = std::move(name);
  a.text = std::move(text);
  return a;
}

TraceArg TraceRecorder::Number(std::string name, double value) {
  TraceArg a;
  a.name = std::move(name);
  a.number = value;
  a.is_number = true;
  return a;
}

TraceScope::TraceScope(TraceRecorder* trace, const char* category, std::string name)
    : trace_(trace), category_(category) {
  if (trace_ == nullptr) return;
  name_ = std::move(name);
  start_ = TraceRecorder::Clock::now();
}

TraceScope::~TraceScope() {
  if (trace_ == nullptr) return;
  const double ts = trace_->Micros(start_);
  trace_->Complete(std::move(name_), category_, ts, trace_->NowMicros() - ts, trace_->ThreadTrack(), std::move(args_));
}

}  // namespace gld
