// save() and load(): the PT2 archive layout around the serialized program (docs/ARCHIVE.md).

#include "xport/serde/archive.h"

#include <bit>
#include <cerrno>
#include <cstdio>
#include <string_view>

#include "serde/pt2_format.h"
#include "serde/serialize.h"
#include "serde/zip_io.h"
#include "tensor/file_mapping.h"
#include "xport/core/error.h"

namespace xport {
namespace {

static_assert(std::endian::native == std::endian::little,
              "archives hold little-endian tensor bytes, read and written raw");

// A small text entry (`pt2`, `0`, `little`) without trailing whitespace, cut to 40 characters
// so a hostile entry cannot flood an error message.
std::string entry_text(const serde::ZipEntry& e) {
  std::string_view s(reinterpret_cast<const char*>(e.data), e.size);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r'))
    s.remove_suffix(1);
  return std::string(s.substr(0, 40));
}

// A content hash for .data/serialization_id: FNV-1a over the JSON documents and payload sizes
// (the tensor bytes are not hashed, which would cost a pass over every weight).
std::string serialization_id(const serde::SerializedProgram& s) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](std::string_view bytes) {
    for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  };
  mix(s.model_json);
  mix(s.weights_config_json);
  mix(s.constants_config_json);
  for (const serde::Payload& p : s.payloads)
    mix(p.path + ":" + std::to_string(p.storage->nbytes()));
  char buf[21];
  std::snprintf(buf, sizeof(buf), "%020llu", static_cast<unsigned long long>(h));
  return buf;
}

// Where the archive's entries live: "" or the one top-level folder holding archive_format.
std::string find_root(const serde::ZipView& zip, const std::string& what) {
  if (zip.find(serde::kArchiveFormatPath)) return "";
  const std::string suffix = std::string("/") + serde::kArchiveFormatPath;
  for (const auto& [name, entry] : zip.entries()) {
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        name.find('/') == name.size() - suffix.size()) {
      return name.substr(0, name.size() - suffix.size() + 1);
    }
  }
  XPORT_FAIL(InvalidArchive, what, ": not a PT2 archive: no ", serde::kArchiveFormatPath,
             " entry (at the top level or in one top-level folder)");
}

}  // namespace

namespace {

// Writes the archive to `partial` and checks it; the caller renames it into place.
void write_archive(const serde::SerializedProgram& s, const std::string& partial,
                   const std::string& path) {
  {
    serde::ZipWriter zip(partial);
    const std::string root = serde::kRootFolder;
    zip.add(root + serde::kArchiveFormatPath, serde::kArchiveFormatValue);
    zip.add(root + serde::kArchiveVersionPath, serde::kArchiveVersionValue);
    zip.add(root + serde::kByteOrderPath, "little");
    zip.add(root + serde::kDataVersionPath, serde::kDataVersionValue);
    zip.add(root + serde::kModelPath, s.model_json);
    zip.add(root + serde::kSampleInputsPath, "");
    zip.add(root + serde::kWeightsConfigPath, s.weights_config_json);
    zip.add(root + serde::kConstantsConfigPath, s.constants_config_json);
    for (const serde::Payload& p : s.payloads) {
      zip.add(root + p.path, p.storage->data(), static_cast<uint64_t>(p.storage->nbytes()));
    }
    zip.add(root + serde::kSerializationIdPath, serialization_id(s));
    zip.close();
  }
  // The alignment the writer computed is what the file has (checked, not assumed).
  int64_t size = 0;
  const auto mapping = detail::map_file(partial, size, "save(" + path + ")");
  const serde::ZipView written(static_cast<const uint8_t*>(mapping.get()),
                               static_cast<uint64_t>(size), partial);
  for (const auto& [name, entry] : written.entries()) {
    const uint64_t offset =
        static_cast<uint64_t>(entry.data - static_cast<const uint8_t*>(mapping.get()));
    XPORT_CHECK(offset % serde::kEntryAlignment == 0, Internal, "save(", path, "): entry ", name,
                " starts at offset ", offset, ", not a multiple of ", serde::kEntryAlignment);
  }
}

}  // namespace

void save(const ExportedProgram& program, const std::string& path) {
  const serde::SerializedProgram s = serde::serialize(program);
  const std::string partial = path + ".partial";
  try {
    write_archive(s, partial, path);
  } catch (...) {
    std::remove(partial.c_str());  // no half-written file left behind
    throw;
  }
  XPORT_CHECK(std::rename(partial.c_str(), path.c_str()) == 0, InvalidInput, "save(", path,
              "): cannot rename ", partial, " into place: ", detail::errno_text(errno));
}

namespace serde {

ExportedProgram load_bytes(const uint8_t* data, uint64_t size, std::shared_ptr<const void> owner,
                           const std::string& what, ArchiveInfo& info) {
  info = ArchiveInfo{};
  info.file_bytes = static_cast<int64_t>(size);
  const ZipView zip(data, size, what);
  const std::string root = find_root(zip, what);
  const ZipEntry* format = zip.find(root + kArchiveFormatPath);
  const std::string format_text = entry_text(*format);
  XPORT_CHECK(format_text == kArchiveFormatValue, InvalidArchive, what, ": ", kArchiveFormatPath,
              " is '", format_text, "', expected '", kArchiveFormatValue, "'");
  if (const ZipEntry* version = zip.find(root + kArchiveVersionPath)) {
    info.archive_version = entry_text(*version);
  }
  if (const ZipEntry* order = zip.find(root + kByteOrderPath)) {
    const std::string order_text = entry_text(*order);
    XPORT_CHECK(order_text == "little", InvalidArchive, what, ": ", kByteOrderPath, " is '",
                order_text, "'; xport reads little-endian archives only");
  }
  return deserialize(zip, root, owner, what, info);
}

}  // namespace serde

ExportedProgram load(const std::string& path, ArchiveInfo& info) {
  int64_t size = 0;
  std::shared_ptr<void> mapping = detail::map_file(path, size, "load(" + path + ")");
  return serde::load_bytes(static_cast<const uint8_t*>(mapping.get()), static_cast<uint64_t>(size),
                           mapping, path, info);
}

ExportedProgram load(const std::string& path) {
  ArchiveInfo info;
  return load(path, info);
}

}  // namespace xport
