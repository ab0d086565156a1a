#include "util/trace_recorder.h"

#include <unistd.h>

#include <algorithm>
#include <utility>

namespace gld {

TraceRecorder::TraceRecorder(int max_runs)
    : origin_(Clock::now()), pid_(static_cast<int>(getpid())), max_runs_(static_cast<size_t>(std::max(max_runs, 1))) {
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
  started_ = true;
}

void TraceRecorder::ClearRuns() {
  std::lock_guard<std::mutex> lock(mutex_);
  events_.resize(startup_events_);
  runs_.clear();
  dropped_runs_ = dropped_events_ = 0;
}

void TraceRecorder::EndRun() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!started_) return;
  runs_.emplace_back(std::make_move_iterator(events_.begin() + static_cast<std::ptrdiff_t>(startup_events_)),
                     std::make_move_iterator(events_.end()));
  events_.resize(startup_events_);
  while (runs_.size() > max_runs_) {
    ++dropped_runs_;
    dropped_events_ += runs_.front().size();
    runs_.pop_front();
  }
}

uint64_t TraceRecorder::dropped_runs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dropped_runs_;
}

uint64_t TraceRecorder::dropped_events() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dropped_events_;
}

std::vector<TraceEvent> TraceRecorder::Events() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<TraceEvent> sorted = events_;
  for (const std::vector<TraceEvent>& run : runs_) sorted.insert(sorted.end(), run.begin(), run.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const TraceEvent& a, const TraceEvent& b) {
    if (a.ts_us != b.ts_us) return a.ts_us < b.ts_us;
    return a.dur_us > b.dur_us;
  });
  std::vector<TraceEvent> out = metadata_;
  if (dropped_runs_ > 0) {
    // Said in the trace itself: a viewer's metadata, and a reader's counts.
    TraceEvent dropped;
    dropped.phase = 'M';
    dropped.name = "trace_dropped";
    dropped.pid = pid_;
    dropped.args = {Number("dropped_invokes", static_cast<double>(dropped_runs_)),
                    Number("dropped_events", static_cast<double>(dropped_events_)),
                    Number("kept_invokes", static_cast<double>(runs_.size())),
                    Text("note", "the trace keeps the last " + std::to_string(max_runs_) +
                                     " invokes (option trace_max_invokes, default " +
                                     std::to_string(kDefaultMaxRuns) + "); " + std::to_string(dropped_runs_) +
                                     " earlier invokes (" + std::to_string(dropped_events_) +
                                     " events) were dropped")};
    out.push_back(std::move(dropped));
  }
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
