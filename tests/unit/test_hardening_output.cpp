// Issue 14, writing: AtomicFileWriter's documented rule (engine/common/atomic_file.h) for each
// kind of target: a symlink keeps its link, a file keeps its mode, a FIFO and a device are written
// in place (a FIFO without a reader is an error, not a hang), a directory is refused up front.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

using testing::TempDir;

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_all(const std::filesystem::path& p, const std::string& data) {
    AtomicFileWriter f(p);
    f.write(data);
    f.commit();
}

std::string write_error(const std::filesystem::path& p, const std::string& data = "hello") {
    try {
        write_all(p, data);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(OutputFile, NewAndExistingRegularFilesAreReplacedAtomicallyKeepingTheMode) {
    TempDir dir;
    write_all(dir / "new.txt", "one");
    EXPECT_EQ(slurp(dir / "new.txt"), "one");
    ASSERT_EQ(::chmod((dir / "new.txt").c_str(), 0600), 0);
    write_all(dir / "new.txt", "two");
    EXPECT_EQ(slurp(dir / "new.txt"), "two");
    struct stat st {};
    ASSERT_EQ(::stat((dir / "new.txt").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    // Nothing left behind: only the file itself.
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

TEST(OutputFile, ASymlinkIsWrittenThroughAndKeepsItsLink) {
    TempDir dir;
    std::filesystem::create_directory(dir / "real");
    write_all(dir / "real" / "target.json", "old");
    std::filesystem::create_symlink("real/target.json", dir / "link.json");
    write_all(dir / "link.json", "new");
    EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.json"));
    EXPECT_EQ(slurp(dir / "real" / "target.json"), "new");
    // A dangling link is refused rather than replaced by a file.
    std::filesystem::create_symlink("nowhere/x.json", dir / "dangling.json");
    EXPECT_NE(write_error(dir / "dangling.json").find("symlink whose target cannot be resolved"),
              std::string::npos);
    EXPECT_TRUE(std::filesystem::is_symlink(dir / "dangling.json"));
}

TEST(OutputFile, ADirectoryIsRefusedWithARealMessage) {
    TempDir dir;
    const std::string m = write_error(dir.path());
    EXPECT_NE(m.find("it is a directory"), std::string::npos) << m;
    EXPECT_EQ(m.find("Success"), std::string::npos) << m;
    EXPECT_NE(write_error(dir / "no" / "such" / "dir.txt").find("No such file or directory"),
              std::string::npos);
}

TEST(OutputFile, CharacterDevicesAreWrittenInPlace) {
    write_all("/dev/null", "discarded");
    EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
    const std::string m = write_error("/dev/full", std::string(1 << 16, 'x'));
    EXPECT_NE(m.find("cannot write /dev/full"), std::string::npos) << m;
    EXPECT_NE(m.find("No space left on device"), std::string::npos) << m;
    EXPECT_TRUE(std::filesystem::is_character_file("/dev/full"));
}

TEST(OutputFile, AFifoIsWrittenInPlaceAndOneWithoutAReaderIsAnError) {
    TempDir dir;
    const auto fifo = dir / "out.fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // No reader: the open must fail at once (a blocking open would hang this test).
    EXPECT_NE(write_error(fifo).find("no process is reading this FIFO"), std::string::npos);

    // With a reader, the data goes through the FIFO, which stays a FIFO.
    const int rfd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    ASSERT_GE(rfd, 0);
    write_all(fifo, "through the pipe");
    char buf[64] = {};
    const ssize_t n = ::read(rfd, buf, sizeof buf);
    ::close(rfd);
    EXPECT_EQ(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), "through the pipe");
    EXPECT_TRUE(std::filesystem::is_fifo(fifo));
}

TEST(OutputFile, DevStdoutRedirectedToAFileAppendsInsteadOfReplacing) {
    TempDir dir;
    const auto out = dir / "stdout.txt";
    std::ofstream(out) << "before\n";
    const int fd = ::open(out.c_str(), O_WRONLY | O_APPEND);
    ASSERT_GE(fd, 0);
    write_all("/proc/self/fd/" + std::to_string(fd), "after\n");
    ::close(fd);
    EXPECT_EQ(slurp(out), "before\nafter\n");
}

}  // namespace
}  // namespace snapdoc
