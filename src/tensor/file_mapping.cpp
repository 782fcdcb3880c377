#include "tensor/file_mapping.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <map>
#include <mutex>
#include <system_error>

#include "xport/core/error.h"

namespace xport::detail {

namespace {

// The live mappings of map_file, base address -> length: release_file_pages acts inside them
// only, never on memory that holds the only copy of its bytes.
struct Mappings {
  std::mutex mutex;
  std::map<uintptr_t, size_t> live;
};

Mappings& mappings() {
  static Mappings* m = new Mappings;  // never destroyed: mappings may outlive static destructors
  return *m;
}

// Whether each page of [first, last) either is not in memory or holds the file's bytes: none
// was written (a written page of a private mapping is an anonymous copy) or swapped out. From
// /proc/self/pagemap (bit 63: present, 62: swapped, 61: a file page); false when unreadable.
bool pages_hold_the_file(uintptr_t first, uintptr_t last, uintptr_t page) {
  const int fd = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool clean = true;
  uint64_t entries[512];
  for (uintptr_t p = first; clean && p < last;) {
    const size_t count = std::min<size_t>(512, (last - p) / page);
    const auto offset = static_cast<off_t>(p / page * sizeof(uint64_t));
    const ssize_t got = ::pread(fd, entries, count * sizeof(uint64_t), offset);
    if (got != static_cast<ssize_t>(count * sizeof(uint64_t))) {
      clean = false;
      break;
    }
    for (size_t i = 0; i < count; ++i) {
      const uint64_t e = entries[i];
      const bool present = (e >> 63) & 1, swapped = (e >> 62) & 1, file = (e >> 61) & 1;
      if (swapped || (present && !file)) clean = false;
    }
    p += count * page;
  }
  ::close(fd);
  return clean;
}

}  // namespace

std::string errno_text(int err) { return std::generic_category().message(err); }

int64_t release_file_pages(const void* data, int64_t nbytes) {
  if (data == nullptr || nbytes <= 0) return 0;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t end = begin + static_cast<uintptr_t>(nbytes);
  const uintptr_t first = (begin + page - 1) / page * page, last = end / page * page;
  if (first >= last) return 0;
  Mappings& m = mappings();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.live.upper_bound(first);
  if (it == m.live.begin()) return 0;
  --it;
  if (last > it->first + it->second) return 0;
  if (!pages_hold_the_file(first, last, page)) return 0;
  if (::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED) != 0) return 0;
  return static_cast<int64_t>(last - first);
}

int64_t release_file_pages(const Tensor& t) {
  if (!t.defined() || t.is_fake() || t.int_numel() == 0) return 0;
  int64_t span = 1;  // in elements, from the first
  const std::vector<int64_t> sizes = t.int_sizes(), strides = t.int_strides();
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (strides[d] < 0) return 0;
    span += (sizes[d] - 1) * strides[d];
  }
  return release_file_pages(t.raw_data(), span * element_size(t.dtype()));
}

std::shared_ptr<void> map_file(const std::string& path, int64_t& size, const std::string& caller) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  XPORT_CHECK(fd >= 0, InvalidInput, caller, ": cannot open the file: ", errno_text(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    XPORT_FAIL(InvalidInput, caller, ": cannot stat the file: ", errno_text(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    XPORT_FAIL(InvalidInput, caller, ": not a regular file");
  }
  size = static_cast<int64_t>(st.st_size);
  if (size == 0) {  // mmap refuses length 0
    ::close(fd);
    return nullptr;
  }
  void* base =
      ::mmap(nullptr, static_cast<size_t>(size), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);  // the mapping stays valid without the descriptor
  XPORT_CHECK(base != MAP_FAILED, InvalidInput, caller, ": cannot map the file: ", errno_text(err));
  const size_t length = static_cast<size_t>(size);
  {
    std::lock_guard<std::mutex> lock(mappings().mutex);
    mappings().live[reinterpret_cast<uintptr_t>(base)] = length;
  }
  return std::shared_ptr<void>(base, [length](void* p) {
    {
      std::lock_guard<std::mutex> lock(mappings().mutex);
      mappings().live.erase(reinterpret_cast<uintptr_t>(p));
    }
    ::munmap(p, length);
  });
}

}  // namespace xport::detail
