// FNV-1a, 64 bits: a cheap hash of bytes that is the same in every process (the calibration file's layout
// signature, the wisdom file's job shape, the ranks' agreement on a wisdom entry).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace redux {

inline uint64_t fnv1a(const char* data, size_t size, uint64_t hash = 1469598103934665603ull) {
    for (size_t i = 0; i < size; ++i) {
        hash ^= static_cast<unsigned char>(data[i]);
        hash *= 1099511628211ull;
    }
    return hash;
}

inline uint64_t fnv1a(const std::string& text) { return fnv1a(text.data(), text.size()); }

}  // namespace redux
