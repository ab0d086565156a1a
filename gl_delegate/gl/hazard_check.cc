#include "gl/hazard_check.h"

#include <epoxy/gl.h>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "gl/glsl_interface.h"

namespace gld::gl {

namespace {

// How an access reaches memory; the barrier bit a later access needs after
// a shader write is its path's.
enum class Path : uint8_t { kStorage, kImage, kTextureFetch, kBufferUpdate, kApp };

uint32_t PathBit(Path p) {
  switch (p) {
    case Path::kStorage: return GL_SHADER_STORAGE_BARRIER_BIT;
    case Path::kImage: return GL_SHADER_IMAGE_ACCESS_BARRIER_BIT;
    case Path::kTextureFetch: return GL_TEXTURE_FETCH_BARRIER_BIT;
    case Path::kBufferUpdate: return GL_BUFFER_UPDATE_BARRIER_BIT;
    case Path::kApp: return GL_ALL_BARRIER_BITS;
  }
  return GL_ALL_BARRIER_BITS;
}

bool ShaderPath(Path p) { return p == Path::kStorage || p == Path::kImage || p == Path::kTextureFetch; }

struct Access {
  ResourceRange range;
  bool read = false, write = false;
  Path path = Path::kStorage;
};

uint64_t End(const ResourceRange& r) { return r.size == 0 ? UINT64_MAX : r.offset + r.size; }

bool Overlap(const ResourceRange& a, const ResourceRange& b) {
  return a.resource == b.resource && a.offset < End(b) && b.offset < End(a);
}

// Bits a barrier between `earlier` and `later` (touching common bytes) must
// carry; 0 when GL orders them itself.
bool ShaderWrite(const Access& a) { return a.write && (a.path == Path::kStorage || a.path == Path::kImage); }

uint32_t RequiredBits(const Access& earlier, const Access& later) {
  if (ShaderWrite(earlier)) return PathBit(later.path);
  if (earlier.read && ShaderPath(earlier.path) && ShaderWrite(later)) return PathBit(later.path);
  return 0;
}

// A shader access still able to race with a later command.
struct Past {
  Access access;
  size_t command = 0;
  uint32_t since = 0;   // bits of the barriers issued after it
  uint32_t needed = 0;  // bits after which nothing later can race with it
};

class Checker {
 public:
  Checker(const std::vector<GlCommand>& commands, size_t max_hazards, ShaderInterfaceCache* cache)
      : commands_(commands), max_(max_hazards), interfaces_(cache != nullptr ? *cache : own_interfaces_) {}

  std::vector<Hazard> Run() {
    Prepare();
    for (size_t i = 0; i < commands_.size() && hazards_.size() < max_; ++i) Step(i);
    return hazards_;
  }

 private:
  // Which barrier bits can matter at all: the paths that occur in the list.
  void Prepare() {
    for (const GlCommand& c : commands_) {
      switch (c.kind) {
        case GlCommand::kDispatch: present_ |= GL_SHADER_STORAGE_BARRIER_BIT; break;
        case GlCommand::kBindImage: present_ |= GL_SHADER_IMAGE_ACCESS_BARRIER_BIT; break;
        case GlCommand::kBindTexture: present_ |= GL_TEXTURE_FETCH_BARRIER_BIT; break;
        case GlCommand::kHostWrite:
        case GlCommand::kHostRead:
        case GlCommand::kCopy: present_ |= GL_BUFFER_UPDATE_BARRIER_BIT; break;
        case GlCommand::kAppAccess: present_ = GL_ALL_BARRIER_BITS; break;
        default: break;
      }
    }
  }

  void Step(size_t i) {
    const GlCommand& c = commands_[i];
    switch (c.kind) {
      case GlCommand::kRunStart:
        storage_.clear();
        textures_.clear();
        images_.clear();
        break;
      case GlCommand::kBindStorage: Bind(&storage_, c); break;
      case GlCommand::kBindTexture: Bind(&textures_, c); break;
      case GlCommand::kBindImage: Bind(&images_, c); break;
      case GlCommand::kBarrier: Barrier(c.barrier_bits); break;
      case GlCommand::kDispatch: Dispatch(i); break;
      case GlCommand::kHostWrite: Touch(i, {c.range, false, true, Path::kBufferUpdate}); break;
      case GlCommand::kHostRead: Touch(i, {c.range, true, false, Path::kBufferUpdate}); break;
      case GlCommand::kCopy:
        Touch(i, {c.copy_source, true, false, Path::kBufferUpdate});
        Touch(i, {c.range, false, true, Path::kBufferUpdate});
        break;
      case GlCommand::kAppAccess: Touch(i, {c.range, true, true, Path::kApp}); break;
    }
  }

  static void Bind(std::map<uint32_t, ResourceRange>* table, const GlCommand& c) {
    if (c.unbind) {
      table->erase(c.point);
    } else {
      (*table)[c.point] = c.range;
    }
  }

  void Barrier(uint32_t bits) {
    for (Past& p : past_) p.since |= bits;
    past_.erase(std::remove_if(past_.begin(), past_.end(),
                               [](const Past& p) { return (p.needed & ~p.since) == 0; }),
                past_.end());
  }

  const ShaderInterface& InterfaceOf(const std::string& source) {
    auto it = interfaces_.find(std::string_view(source));
    if (it == interfaces_.end()) it = interfaces_.emplace(std::string_view(source), ReadShaderInterface(source)).first;
    return it->second;
  }

  // What dispatch i touches: its declarations applied to what is bound now.
  std::vector<Access> DispatchAccesses(size_t i) {
    const GlCommand& c = commands_[i];
    std::vector<Access> out;
    if (c.source == nullptr) {
      Report(Hazard::kUnreadableShader, i, i, "", ResourceRange{}, 0, "no shader source in the command list");
      return out;
    }
    const ShaderInterface& shader = InterfaceOf(*c.source);
    for (const std::string& problem : shader.problems) {
      Report(Hazard::kUnreadableShader, i, i, "", ResourceRange{}, 0, problem);
    }
    auto add = [&](const std::map<uint32_t, ShaderInterface::Use>& uses,
                   const std::map<uint32_t, ResourceRange>& table, Path path, const char* what) {
      for (const auto& [point, use] : uses) {
        if (!use.read && !use.write) continue;
        auto bound = table.find(point);
        if (bound == table.end()) {
          Report(Hazard::kUnboundPoint, i, i, "", ResourceRange{}, 0,
                 std::string(what) + " binding " + std::to_string(point) + " is declared but nothing of this run is bound there");
          continue;
        }
        if (bound->second.resource.kind == GlResource::kIndexFault) continue;
        out.push_back({bound->second, use.read, use.write, path});
      }
    };
    add(shader.storage_blocks, storage_, Path::kStorage, "storage");
    add(shader.images, images_, Path::kImage, "image");
    if (shader.samplers > 0 && textures_.empty()) {
      Report(Hazard::kUnboundPoint, i, i, "", ResourceRange{}, 0, "samples a texture but none is bound");
    }
    if (shader.samplers > 0) {
      for (const auto& [unit, range] : textures_) out.push_back({range, true, false, Path::kTextureFetch});
    }
    return out;
  }

  void Dispatch(size_t i) {
    if (!commands_[i].runs_workgroups) return;
    const std::vector<Access> accesses = DispatchAccesses(i);
    for (size_t a = 0; a < accesses.size(); ++a) {
      for (size_t b = a + 1; b < accesses.size(); ++b) {
        if ((accesses[a].write || accesses[b].write) && Overlap(accesses[a].range, accesses[b].range)) {
          Report(Hazard::kAliasedBindings, i, i, accesses[a].range.resource.name,
                 Common(accesses[a].range, accesses[b].range), 0,
                 accesses[a].range.what + " and " + accesses[b].range.what);
        }
      }
    }
    for (const Access& a : accesses) Compare(i, a);
    for (const Access& a : accesses) Remember(i, a);
  }

  void Touch(size_t i, const Access& a) {
    Compare(i, a);
    if (ShaderPath(a.path)) Remember(i, a);
  }

  void Remember(size_t i, const Access& a) {
    Past p;
    p.access = a;
    p.command = i;
    p.needed = a.write ? present_ : (present_ & (GL_SHADER_STORAGE_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT));
    if (p.needed != 0) past_.push_back(p);
  }

  static ResourceRange Common(const ResourceRange& a, const ResourceRange& b) {
    ResourceRange r = a;
    r.offset = std::max(a.offset, b.offset);
    const uint64_t end = std::min(End(a), End(b));
    r.size = end == UINT64_MAX ? 0 : end - r.offset;
    return r;
  }

  void Compare(size_t i, const Access& later) {
    for (const Past& p : past_) {
      if (p.command == i || !Overlap(p.access.range, later.range)) continue;
      const uint32_t missing = RequiredBits(p.access, later) & ~p.since;
      if (missing == 0) continue;
      const Hazard::Kind kind = !p.access.write ? Hazard::kWriteAfterRead
                                : later.read    ? Hazard::kReadAfterWrite
                                                : Hazard::kWriteAfterWrite;
      ResourceRange common = Common(p.access.range, later.range);
      if (p.access.range.what != later.range.what && !later.range.what.empty()) {
        common.what = p.access.range.what.empty() ? later.range.what : p.access.range.what + " / " + later.range.what;
      }
      Report(kind, p.command, i, p.access.range.resource.name, common, missing, "");
    }
  }

  void Report(Hazard::Kind kind, size_t first, size_t second, const std::string& buffer, const ResourceRange& range,
              uint32_t missing, const std::string& detail) {
    if (hazards_.size() >= max_) return;
    const auto key = std::make_tuple(first, second, buffer, static_cast<int>(kind), detail);
    if (!reported_.insert(key).second) return;
    Hazard h;
    h.kind = kind;
    h.first = first;
    h.second = second;
    h.first_label = commands_[first].label;
    h.second_label = commands_[second].label;
    h.buffer = buffer;
    h.offset = range.offset;
    h.size = range.size;
    h.missing_bits = missing;
    h.detail = detail.empty() ? range.what : detail;
    hazards_.push_back(std::move(h));
  }

  const std::vector<GlCommand>& commands_;
  const size_t max_;
  uint32_t present_ = 0;
  std::map<uint32_t, ResourceRange> storage_, textures_, images_;
  std::vector<Past> past_;
  ShaderInterfaceCache own_interfaces_;
  ShaderInterfaceCache& interfaces_;
  std::set<std::tuple<size_t, size_t, std::string, int, std::string>> reported_;
  std::vector<Hazard> hazards_;
};

}  // namespace

const char* HazardKindName(Hazard::Kind kind) {
  switch (kind) {
    case Hazard::kReadAfterWrite: return "read after write";
    case Hazard::kWriteAfterRead: return "write after read";
    case Hazard::kWriteAfterWrite: return "write after write";
    case Hazard::kUnboundPoint: return "unbound binding point";
    case Hazard::kAliasedBindings: return "aliased bindings";
    case Hazard::kUnreadableShader: return "unreadable shader interface";
  }
  return "?";
}

std::string BarrierBitNames(uint32_t bits) {
  if (bits == GL_ALL_BARRIER_BITS) return "GL_ALL_BARRIER_BITS";
  static const std::pair<uint32_t, const char*> kNames[] = {
      {GL_SHADER_STORAGE_BARRIER_BIT, "GL_SHADER_STORAGE_BARRIER_BIT"},
      {GL_BUFFER_UPDATE_BARRIER_BIT, "GL_BUFFER_UPDATE_BARRIER_BIT"},
      {GL_TEXTURE_FETCH_BARRIER_BIT, "GL_TEXTURE_FETCH_BARRIER_BIT"},
      {GL_SHADER_IMAGE_ACCESS_BARRIER_BIT, "GL_SHADER_IMAGE_ACCESS_BARRIER_BIT"},
  };
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if ((bits & bit) == 0) continue;
    out += (out.empty() ? "" : " | ") + std::string(name);
    bits &= ~bit;
  }
  if (bits != 0) out += (out.empty() ? "" : " | ") + std::to_string(bits);
  return out.empty() ? "0" : out;
}

std::string Hazard::ToString() const {
  std::string s = HazardKindName(kind);
  if (kind == kUnboundPoint || kind == kUnreadableShader) return s + " in '" + second_label + "': " + detail;
  const std::string bytes = "[" + std::to_string(offset) + ", " + (size == 0 ? std::string("end") : std::to_string(offset + size)) + ")";
  if (kind == kAliasedBindings) {
    return s + " in '" + second_label + "': " + buffer + " bytes " + bytes + " (" + detail + ")";
  }
  s += ": '" + first_label + "' then '" + second_label + "' on " + buffer + " bytes " + bytes;
  if (!detail.empty()) s += " (" + detail + ")";
  return s + " with no " + BarrierBitNames(missing_bits) + " barrier between them";
}

std::vector<Hazard> FindHazards(const std::vector<GlCommand>& commands, size_t max_hazards,
                                ShaderInterfaceCache* cache) {
  return Checker(commands, max_hazards, cache).Run();
}

Status CheckHazards(const std::vector<GlCommand>& commands, const std::string& what, ShaderInterfaceCache* cache) {
  const std::vector<Hazard> hazards = FindHazards(commands, 4, cache);
  if (hazards.empty()) return OkStatus();
  std::string message = what + ": unordered memory access: ";
  for (size_t k = 0; k < hazards.size(); ++k) message += (k == 0 ? "" : "; ") + hazards[k].ToString();
  return InternalError(message);
}

}  // namespace gld::gl
