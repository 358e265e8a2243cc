// Reading and publishing the files libredux keeps between runs (owned_file.hpp). Which files may be replaced is
// decided by their readers (policy/calibration_file.cpp, policy/wisdom_file.cpp), on what they find at the path
// just before each write; a file that appears where none was is judged again (Publish::appeared).
#include "policy/owned_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

namespace redux {
namespace {

std::string os_error(int error_number) { return std::strerror(error_number); }

// Writes all of `text` to fd; errno set when it cannot.
bool write_all(int fd, const std::string& text) {
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t wrote = write(fd, text.data() + done, text.size() - done);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote < 0) return false;
        done += static_cast<size_t>(wrote);
    }
    return true;
}

}  // namespace

// O_NONBLOCK: opening a FIFO must not wait for a writer.
int read_regular_file(const std::string& path, off_t max_bytes, std::string& text) {
    const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return errno;
    struct stat st {};
    int failure = 0;
    if (fstat(fd, &st) != 0) {
        failure = errno;
    } else if (S_ISDIR(st.st_mode)) {
        failure = kIsDirectory;
    } else if (!S_ISREG(st.st_mode)) {
        failure = kNotRegular;
    } else if (st.st_size > max_bytes) {
        failure = kTooLarge;
    }
    text.clear();
    char buffer[65536];
    while (failure == 0) {
        const ssize_t got = read(fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) failure = errno;
        if (got <= 0) break;
        text.append(buffer, static_cast<size_t>(got));
        if (static_cast<off_t>(text.size()) > max_bytes) failure = kTooLarge;
    }
    close(fd);
    return failure;
}

std::string read_failure_words(int failure, off_t max_bytes, const std::string& what) {
    switch (failure) {
        case ENOENT:
            return "does not exist";
        case kIsDirectory:
            return "is a directory, not a file";
        case kNotRegular:
            return "is not a regular file";
        case kTooLarge:
            return "is larger than a " + what + " can be (" + std::to_string(max_bytes) + " bytes), so it is not a " +
                   "libredux " + what;
        default:
            return "cannot be read: " + os_error(failure);
    }
}

void make_folder_of(const std::string& path) {
    for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        mkdir(path.substr(0, slash).c_str(), 0777);
    }
}

Publish publish_file(const std::string& path, const std::string& text, bool path_was_missing, const std::string& what,
                     std::string& error) {
    std::random_device random;
    const std::string temporary = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(random());
    const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        error = "cannot write " + what + " " + path + ": " + os_error(errno) + " (creating " + temporary + ")";
        return Publish::failed;
    }
    bool written = write_all(fd, text) && fsync(fd) == 0;
    int error_number = written ? 0 : errno;
    if (close(fd) != 0 && written) {
        written = false;
        error_number = errno;
    }
    if (!written) {
        error = "cannot write " + what + " " + path + ": " + os_error(error_number) + " (writing " + temporary + ")";
        unlink(temporary.c_str());
        return Publish::failed;
    }
    if (path_was_missing) {
        // Publish without replacing: link() fails with EEXIST if a file appeared since it was read.
        if (link(temporary.c_str(), path.c_str()) == 0) {
            unlink(temporary.c_str());
            return Publish::done;
        }
        error_number = errno;
        if (error_number == EEXIST) {
            unlink(temporary.c_str());
            return Publish::appeared;
        }
        if (error_number != EPERM && error_number != EOPNOTSUPP && error_number != ENOSYS && error_number != EMLINK) {
            error = "cannot write " + what + " " + path + ": " + os_error(error_number) + " (linking " + temporary +
                    " to it)";
            unlink(temporary.c_str());
            return Publish::failed;
        }
        // A file system without hard links: rename, as over a file of ours.
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        error = "cannot write " + what + " " + path + ": " + os_error(errno) + " (renaming " + temporary + " over it)";
        unlink(temporary.c_str());
        return Publish::failed;
    }
    return Publish::done;
}

DirectoryLock::DirectoryLock(const std::string& path) {
    const size_t slash = path.rfind('/');
    const std::string directory = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    fd_ = open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) return;
    int rc = 0;
    while ((rc = flock(fd_, LOCK_EX)) != 0 && errno == EINTR) {
    }
    held_ = rc == 0;
}

DirectoryLock::~DirectoryLock() {
    if (fd_ >= 0) close(fd_);  // releases the lock
}

}  // namespace redux
