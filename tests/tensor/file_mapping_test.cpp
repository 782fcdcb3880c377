#include "tensor/file_mapping.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace xport::detail {
namespace {

int64_t page_size() { return static_cast<int64_t>(::sysconf(_SC_PAGESIZE)); }

// Whether the page holding `p` is in this process's memory (/proc/self/pagemap bit 63).
bool resident(const void* p) {
  const int fd = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0);
  uint64_t entry = 0;
  const auto offset = static_cast<off_t>(reinterpret_cast<uintptr_t>(p) /
                                         static_cast<uintptr_t>(page_size()) * sizeof(uint64_t));
  EXPECT_EQ(::pread(fd, &entry, sizeof(entry), offset), static_cast<ssize_t>(sizeof(entry)));
  ::close(fd);
  return (entry >> 63) & 1;
}

class FileMapping : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("xport_file_mapping_" + std::to_string(::getpid()) + ".bin"))
                .string();
    values_.resize(static_cast<size_t>(16 * page_size()) / sizeof(float));
    for (size_t i = 0; i < values_.size(); ++i) values_[i] = static_cast<float>(i) * 0.5f;
    std::ofstream(path_, std::ios::binary)
        .write(reinterpret_cast<const char*>(values_.data()),
               static_cast<std::streamsize>(values_.size() * sizeof(float)));
  }
  void TearDown() override { std::filesystem::remove(path_); }

  // A float tensor over the whole mapped file, read once so that its pages are in memory.
  Tensor mapped(std::shared_ptr<void>& mapping) {
    int64_t size = 0;
    mapping = map_file(path_, size, "test");
    const auto n = static_cast<int64_t>(values_.size());
    TensorMeta meta;
    meta.sizes = {SymInt(n)};
    meta.strides = {SymInt(1)};
    meta.dtype = DType::Float32;
    Tensor t = Tensor::make(Storage::wrap(mapping.get(), size, mapping), std::move(meta));
    float sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += static_cast<const float*>(t.raw_data())[i];
    EXPECT_GT(sum, 0.0f);
    return t;
  }

  std::string path_;
  std::vector<float> values_;
};

TEST_F(FileMapping, ReleasedPagesLeaveMemoryAndReadTheFileAgain) {
  std::shared_ptr<void> mapping;
  const Tensor t = mapped(mapping);
  const auto* data = static_cast<const float*>(t.raw_data());
  ASSERT_TRUE(resident(data + values_.size() / 2));
  EXPECT_EQ(release_file_pages(t), 16 * page_size());
  EXPECT_FALSE(resident(data + values_.size() / 2));
  EXPECT_EQ(std::memcmp(data, values_.data(), values_.size() * sizeof(float)), 0);
}

TEST_F(FileMapping, OnlyWholePagesInsideTheRangeAreReleased) {
  std::shared_ptr<void> mapping;
  const Tensor t = mapped(mapping);
  const auto* bytes = static_cast<const char*>(t.raw_data());
  // From the middle of page 1 to the middle of page 4: pages 2 and 3.
  EXPECT_EQ(release_file_pages(bytes + page_size() * 3 / 2, page_size() * 3), 2 * page_size());
  EXPECT_TRUE(resident(bytes + page_size()));
  EXPECT_FALSE(resident(bytes + 2 * page_size()));
  EXPECT_TRUE(resident(bytes + 4 * page_size()));
}

TEST_F(FileMapping, AWrittenPageIsNeverReleased) {
  std::shared_ptr<void> mapping;
  const Tensor t = mapped(mapping);
  auto* data = static_cast<float*>(t.raw_data());
  data[values_.size() / 2] = -1.0f;  // a private copy of that page now holds the only -1
  EXPECT_EQ(release_file_pages(t), 0);
  EXPECT_EQ(data[values_.size() / 2], -1.0f);
}

TEST_F(FileMapping, MemoryOutsideAMappingIsLeftAlone) {
  const Tensor t = Tensor::empty_contiguous({16 * page_size() / 4}, DType::Float32);
  auto* data = static_cast<float*>(t.raw_data());
  for (int64_t i = 0; i < t.int_numel(); ++i) data[i] = 2.0f;
  EXPECT_EQ(release_file_pages(t), 0);
  EXPECT_EQ(data[t.int_numel() / 2], 2.0f);
}

}  // namespace
}  // namespace xport::detail
