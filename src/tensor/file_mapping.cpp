#include "tensor/file_mapping.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "xport/error.h"

namespace xport::detail {

std::string errno_text(int err) { return std::generic_category().message(err); }

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
  return std::shared_ptr<void>(base, [length](void* p) { ::munmap(p, length); });
}

}  // namespace xport::detail
