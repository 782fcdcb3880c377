// Zip writing and reading through minizip; see zip_io.h for why minizip.

#include "serde/zip_io.h"

#include <minizip/unzip.h>
#include <minizip/zip.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "xport/core/error.h"

namespace xport::serde {
namespace {

constexpr uint64_t kLocalHeaderBytes = 30;
constexpr uint64_t kZip64ExtraBytes = 20;    // minizip adds this to a zip64 entry's local header
constexpr uint64_t kPaddingHeaderBytes = 4;  // id + length of the padding extra field
constexpr uint32_t kFourGiB = 0xffffffffu;
constexpr uLong kFixedDosDate = (1u << 21) | (1u << 16);  // 1980-01-01 00:00, as PyTorch's writer
constexpr uint64_t kMaxEntries = 1u << 20;
constexpr uLong kMaxNameBytes = 4096;

// ---- reading from memory: minizip's I/O callbacks over a byte range ----------------------------

struct MemoryStream {
  const uint8_t* data;
  uint64_t size;
  uint64_t pos;
};

voidpf ZCALLBACK mem_open(voidpf opaque, const void*, int mode) {
  if ((mode & ZLIB_FILEFUNC_MODE_READWRITEFILTER) != ZLIB_FILEFUNC_MODE_READ) return nullptr;
  auto* s = static_cast<MemoryStream*>(opaque);
  s->pos = 0;
  return s;
}
uLong ZCALLBACK mem_read(voidpf, voidpf stream, void* buf, uLong size) {
  auto* s = static_cast<MemoryStream*>(stream);
  const uint64_t n = std::min<uint64_t>(size, s->pos < s->size ? s->size - s->pos : 0);
  if (n > 0) std::memcpy(buf, s->data + s->pos, n);
  s->pos += n;
  return static_cast<uLong>(n);
}
uLong ZCALLBACK mem_write(voidpf, voidpf, const void*, uLong) { return 0; }
ZPOS64_T ZCALLBACK mem_tell(voidpf, voidpf stream) {
  return static_cast<MemoryStream*>(stream)->pos;
}
long ZCALLBACK mem_seek(voidpf, voidpf stream, ZPOS64_T offset, int origin) {
  auto* s = static_cast<MemoryStream*>(stream);
  uint64_t base = 0;
  if (origin == ZLIB_FILEFUNC_SEEK_CUR) {
    base = s->pos;
  } else if (origin == ZLIB_FILEFUNC_SEEK_END) {
    base = s->size;
  } else if (origin != ZLIB_FILEFUNC_SEEK_SET) {
    return -1;
  }
  if (offset > s->size || base > s->size - offset) return -1;
  s->pos = base + offset;
  return 0;
}
int ZCALLBACK mem_close(voidpf, voidpf) { return 0; }
int ZCALLBACK mem_error(voidpf, voidpf) { return 0; }

struct UnzCloser {
  void operator()(void* z) const { unzClose(z); }
};

}  // namespace

// ---- writing ----------------------------------------------------------------------------------

ZipWriter::ZipWriter(const std::string& path) : path_(path) {
  zip_ = zipOpen64(path.c_str(), APPEND_STATUS_CREATE);
  XPORT_CHECK(zip_ != nullptr, InvalidInput, "save(", path,
              "): cannot create the file (does the directory exist and is it writable?)");
}

ZipWriter::~ZipWriter() {
  if (zip_ != nullptr) zipClose(zip_, nullptr);
}

void ZipWriter::add(const std::string& name, const void* data, uint64_t size) {
  XPORT_CHECK(zip_ != nullptr, Internal, "ZipWriter::add after close");
  const bool zip64 = size >= kFourGiB;
  // The padding extra field ("FB" + length + 'Z' bytes, as PyTorch's writer) ends where the
  // data must start: on a multiple of kEntryAlignment.
  const uint64_t header = kLocalHeaderBytes + name.size() + (zip64 ? kZip64ExtraBytes : 0);
  const uint64_t unpadded = offset_ + header + kPaddingHeaderBytes;
  const uint64_t pad = (kEntryAlignment - unpadded % kEntryAlignment) % kEntryAlignment;
  std::vector<char> extra(kPaddingHeaderBytes + pad, 'Z');
  extra[0] = 'F';
  extra[1] = 'B';
  extra[2] = static_cast<char>(pad & 0xff);
  extra[3] = static_cast<char>(pad >> 8);

  zip_fileinfo info{};
  info.dosDate = kFixedDosDate;
  int rc = zipOpenNewFileInZip4_64(zip_, name.c_str(), &info, extra.data(),
                                   static_cast<uInt>(extra.size()), nullptr, 0, nullptr,
                                   /*method=*/0, /*level=*/0, /*raw=*/0, -MAX_WBITS, DEF_MEM_LEVEL,
                                   Z_DEFAULT_STRATEGY, nullptr, 0, /*versionMadeBy=*/0,
                                   /*flagBase=*/0, zip64 ? 1 : 0);
  XPORT_CHECK(rc == ZIP_OK, InvalidInput, "save(", path_, "): cannot add entry ", name,
              " (minizip error ", rc, ")");
  const auto* bytes = static_cast<const char*>(data);
  for (uint64_t done = 0; done < size && rc == ZIP_OK;) {
    const unsigned chunk = static_cast<unsigned>(std::min<uint64_t>(size - done, 1u << 30));
    rc = zipWriteInFileInZip(zip_, bytes + done, chunk);
    done += chunk;
  }
  if (rc == ZIP_OK) rc = zipCloseFileInZip(zip_);
  XPORT_CHECK(rc == ZIP_OK, InvalidInput, "save(", path_, "): cannot write entry ", name,
              " (minizip error ", rc, "; is the disk full?)");
  offset_ = unpadded + pad + size;
}

void ZipWriter::close() {
  const int rc = zipClose(zip_, nullptr);
  zip_ = nullptr;
  XPORT_CHECK(rc == ZIP_OK, InvalidInput, "save(", path_,
              "): cannot finish the zip directory (minizip error ", rc, "; is the disk full?)");
}

// ---- reading ----------------------------------------------------------------------------------

ZipView::ZipView(const uint8_t* data, uint64_t size, const std::string& what) {
  MemoryStream stream{data, size, 0};
  zlib_filefunc64_def io{};
  io.zopen64_file = mem_open;
  io.zread_file = mem_read;
  io.zwrite_file = mem_write;
  io.ztell64_file = mem_tell;
  io.zseek64_file = mem_seek;
  io.zclose_file = mem_close;
  io.zerror_file = mem_error;
  io.opaque = &stream;
  std::unique_ptr<void, UnzCloser> zip(unzOpen2_64("", &io));
  XPORT_CHECK(zip != nullptr, InvalidArchive, what,
              ": not a zip file (no valid end of central directory record; the file is "
              "truncated or not an archive)");
  unz_global_info64 global{};
  XPORT_CHECK(unzGetGlobalInfo64(zip.get(), &global) == UNZ_OK, InvalidArchive, what,
              ": unreadable zip directory");
  XPORT_CHECK(global.number_entry <= kMaxEntries, InvalidArchive, what,
              ": the zip directory claims ", global.number_entry, " entries (at most ", kMaxEntries,
              " are read)");
  int rc = unzGoToFirstFile(zip.get());
  for (uint64_t index = 0; rc == UNZ_OK; ++index, rc = unzGoToNextFile(zip.get())) {
    XPORT_CHECK(index < kMaxEntries, InvalidArchive, what, ": more than ", kMaxEntries,
                " zip entries");
    unz_file_info64 info{};
    char name_buf[kMaxNameBytes + 1] = {};
    XPORT_CHECK(unzGetCurrentFileInfo64(zip.get(), &info, name_buf, sizeof(name_buf), nullptr, 0,
                                        nullptr, 0) == UNZ_OK,
                InvalidArchive, what, ": zip entry ", index, ": unreadable directory record");
    XPORT_CHECK(info.size_filename <= kMaxNameBytes, InvalidArchive, what, ": zip entry ", index,
                ": name of ", info.size_filename, " bytes (at most ", kMaxNameBytes, ")");
    const std::string name(name_buf, info.size_filename);
    XPORT_CHECK(name.find('\0') == std::string::npos, InvalidArchive, what, ": zip entry ", index,
                ": name contains a NUL byte");
    const std::string where = what + ": zip entry '" + name + "'";
    XPORT_CHECK((info.flag & 1u) == 0, InvalidArchive, where,
                ": encrypted entries are not supported");
    XPORT_CHECK(info.compression_method == 0, InvalidArchive, where, ": compressed (method ",
                info.compression_method,
                "); PT2 archives store entries uncompressed so tensors can be mapped in place");
    XPORT_CHECK(info.compressed_size == info.uncompressed_size, InvalidArchive, where,
                ": stored entry with compressed size ", info.compressed_size,
                " != uncompressed size ", info.uncompressed_size);
    XPORT_CHECK(unzOpenCurrentFile(zip.get()) == UNZ_OK, InvalidArchive, where,
                ": unreadable local header");
    const uint64_t offset = unzGetCurrentFileZStreamPos64(zip.get());
    unzCloseCurrentFile(zip.get());
    XPORT_CHECK(offset <= size && info.uncompressed_size <= size - offset, InvalidArchive, where,
                ": data at offset ", offset, " with ", info.uncompressed_size,
                " bytes runs past the end of the file (", size, " bytes)");
    const bool inserted = entries_
                              .emplace(name, ZipEntry{data + offset, info.uncompressed_size,
                                                      static_cast<uint32_t>(info.crc)})
                              .second;
    XPORT_CHECK(inserted, InvalidArchive, where, ": the name occurs twice");
  }
  XPORT_CHECK(rc == UNZ_END_OF_LIST_OF_FILE, InvalidArchive, what,
              ": the zip directory is corrupt (minizip error ", rc, ")");
}

const ZipEntry* ZipView::find(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

}  // namespace xport::serde
