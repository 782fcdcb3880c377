#pragma once
// Zip entries for PT2 archives, through minizip: a writer that stores entries uncompressed with
// their data 64-byte aligned (so tensors can be mapped in place), and a reader over bytes in
// memory (a mapped file) that gives each entry's data as a pointer into those bytes.
//
// minizip rather than libzip: libzip has no way to ask where an entry's data starts in the file,
// which in-place mapping needs; minizip's unzGetCurrentFileZStreamPos64 gives it, and its writer
// takes the local extra field that carries the alignment padding.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace xport::serde {

/// Alignment of every entry's data in archives xport writes (PyTorch's writer uses the same).
constexpr uint64_t kEntryAlignment = 64;

class ZipWriter {
 public:
  /// Creates (truncates) the zip file at `path`; InvalidInput if it cannot.
  explicit ZipWriter(const std::string& path);
  ~ZipWriter();
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;

  /// Appends an entry stored uncompressed, data aligned to kEntryAlignment, with a fixed
  /// timestamp (so the same entries give the same bytes).
  void add(const std::string& name, const void* data, uint64_t size);
  void add(const std::string& name, std::string_view text) { add(name, text.data(), text.size()); }
  /// Writes the central directory and closes the file; then checks every entry's alignment.
  void close();

 private:
  std::string path_;
  void* zip_ = nullptr;  // zipFile
  uint64_t offset_ = 0;  // where the next local header starts
};

struct ZipEntry {
  const uint8_t* data = nullptr;  // points into the bytes given to ZipView
  uint64_t size = 0;
  uint32_t crc32 = 0;
};

/// The entries of a zip held in memory. Only stored (uncompressed), unencrypted entries are
/// accepted; names are unique; every entry's data lies inside the bytes. Throws InvalidArchive
/// naming `what` (the file) and the problem.
class ZipView {
 public:
  ZipView(const uint8_t* data, uint64_t size, const std::string& what);
  const std::map<std::string, ZipEntry>& entries() const { return entries_; }
  /// The entry or null.
  const ZipEntry* find(const std::string& name) const;

 private:
  std::map<std::string, ZipEntry> entries_;
};

}  // namespace xport::serde
