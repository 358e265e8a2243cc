// The files libredux keeps between runs (the calibration file, the wisdom file): each a path the user typed,
// read whole and only ever written whole, never over a file that is not libredux's. See owned_file.cpp. No MPI.
#pragma once

#include <sys/types.h>

#include <string>

namespace redux {

// Why read_regular_file could not read a file: an errno value, or one of these.
constexpr int kIsDirectory = -1, kNotRegular = -2, kTooLarge = -3;

// The whole of the regular file at `path` (0), or why not. A FIFO or a device is not read (its content is unknown).
int read_regular_file(const std::string& path, off_t max_bytes, std::string& text);

// The words that follow "<path> " for a failure of read_regular_file: "does not exist", "is a directory, not a
// file", "is larger than <what> can be (N bytes), so it is not <what>", "cannot be read: <OS reason>".
std::string read_failure_words(int failure, off_t max_bytes, const std::string& what);

enum class Publish {
    done,      // `path` holds `text`
    appeared,  // `path` was missing when read and a file appeared there since: read and judge it again
    failed,    // not written; `error` says why
};

// Writes `text` to a temporary file beside `path`, flushed to disk, then makes it `path`: by link() where
// `path_was_missing` (which never replaces a file that appeared meanwhile), else by rename() (atomic within a
// file system). Readers and concurrent writers only ever see a whole file. `what` names the file in errors
// ("calibration file").
Publish publish_file(const std::string& path, const std::string& text, bool path_was_missing, const std::string& what,
                     std::string& error);

// Makes the folders of `path` that are missing, as mkdir -p (0777 less the umask): the default wisdom file's
// (policy/config.hpp). One that cannot be made is left to the writes in it to report.
void make_folder_of(const std::string& path);

// An exclusive advisory lock (flock) on the directory that holds `path`, held while the object lives, so that
// processes that read, merge and publish one file take turns. Where the directory cannot be locked (it cannot be
// opened, or its file system has no flock), held() is false and the caller goes on unlocked: the last writer wins.
class DirectoryLock {
public:
    explicit DirectoryLock(const std::string& path);
    ~DirectoryLock();
    DirectoryLock(const DirectoryLock&) = delete;
    DirectoryLock& operator=(const DirectoryLock&) = delete;
    bool held() const { return held_; }

private:
    int fd_ = -1;
    bool held_ = false;
};

}  // namespace redux
