// What a reduce test reduces, and the independent computation of its expected result.
//
// An Operand is a datatype and an operator plus, without MPI, every rank's input and the result: rank r's
// input is a pure function of (r, index, seed), so every rank can compute every other rank's input, and the
// root computes v0 o v1 o ... o v(n-1) itself, in rank order, as MPI_Reduce defines it.
//
// ValueOperand<T> covers every case the tests need: each element of the datatype holds `arity` values of the C
// type T at fixed byte displacements (one value for a predefined type; several for vectors, structs, resized
// types; four for a 2x2 matrix), and `combine` folds two elements' values (left o right).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace redux_test {

// splitmix64 (Steele, Lea, Flood 2014): a well-mixed 64-bit value for each (seed, rank, index).
inline uint64_t mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
inline uint64_t input_bits(uint64_t seed, int rank, uint64_t index) {
    return mix64(seed ^ mix64((static_cast<uint64_t>(rank) << 40) ^ index));
}

// Frees derived datatypes and user operators when the last operand using them goes (before MPI_Finalize).
class OwnedHandles {
public:
    explicit OwnedHandles(std::vector<MPI_Datatype> types, MPI_Op op = MPI_OP_NULL)
        : types_(std::move(types)), op_(op) {}
    OwnedHandles(const OwnedHandles&) = delete;
    OwnedHandles& operator=(const OwnedHandles&) = delete;
    ~OwnedHandles() {
        for (MPI_Datatype& type : types_) MPI_Type_free(&type);
        if (op_ != MPI_OP_NULL) MPI_Op_free(&op_);
    }

private:
    std::vector<MPI_Datatype> types_;
    MPI_Op op_;
};

inline std::shared_ptr<void> owning(std::vector<MPI_Datatype> types, MPI_Op op = MPI_OP_NULL) {
    return std::make_shared<OwnedHandles>(std::move(types), op);
}

class Operand {
public:
    virtual ~Operand() = default;
    virtual const std::string& name() const = 0;
    virtual MPI_Datatype datatype() const = 0;
    virtual MPI_Op op() const = 0;
    // Writes the data of `count` elements of rank's input at `origin` (an MPI buffer address); gaps untouched.
    virtual void fill(char* origin, int count, int rank, uint64_t seed) const = 0;
    // Writes the data of the expected result over ranks 0 .. ranks-1.
    virtual void expect(char* origin, int count, int ranks, uint64_t seed) const = 0;
    // "" when the data of the two buffers is equal, otherwise the first difference in words.
    virtual std::string compare(const char* got, const char* want, int count) const = 0;
};

template <typename T>
std::string show_value(const T& value) {
    std::ostringstream out;
    if constexpr (std::is_same_v<T, bool>) {
        out << (value ? "true" : "false");
    } else if constexpr (std::is_integral_v<T>) {
        out << +value;  // chars as numbers
    } else if constexpr (std::is_floating_point_v<T>) {
        out.precision(21);
        out << value;
    } else {
        const auto* bytes = reinterpret_cast<const unsigned char*>(&value);
        out << "bytes";
        for (size_t i = 0; i < sizeof(T); ++i) out << ' ' << std::hex << +bytes[i];
    }
    return out.str();
}

template <typename T>
class ValueOperand : public Operand {
public:
    struct Spec {
        std::string name;
        MPI_Datatype datatype = MPI_DATATYPE_NULL;
        MPI_Op op = MPI_OP_NULL;
        MPI_Aint extent = sizeof(T);             // of the datatype
        std::vector<MPI_Aint> displacements{0};  // of the arity values in one element
        // Writes rank's value for these random bits into `out` (zeroed beforehand: assign the fields of a padded
        // T rather than returning one, whose padding a copy may leave undefined).
        std::function<void(T& out, int rank, uint64_t bits)> value;
        std::function<void(const T* left, const T* right, T* out)> combine;  // arity values each
        std::function<bool(const T&, const T&)> same = [](const T& a, const T& b) { return a == b; };
        std::function<std::string(const T&)> show = [](const T& v) { return show_value(v); };
        std::shared_ptr<void> owned;  // frees derived datatypes and user ops with the operand
    };

    explicit ValueOperand(Spec spec) : spec_(std::move(spec)) {}

    const std::string& name() const override { return spec_.name; }
    MPI_Datatype datatype() const override { return spec_.datatype; }
    MPI_Op op() const override { return spec_.op; }

    void fill(char* origin, int count, int rank, uint64_t seed) const override {
        const std::unique_ptr<T[]> element = zeroed(arity());
        for (int e = 0; e < count; ++e) {
            input(element.get(), e, rank, seed);
            store(origin, e, element.get());
        }
    }

    void expect(char* origin, int count, int ranks, uint64_t seed) const override {
        std::unique_ptr<T[]> acc = zeroed(arity()), next = zeroed(arity()), out = zeroed(arity());
        for (int e = 0; e < count; ++e) {
            input(acc.get(), e, 0, seed);
            for (int r = 1; r < ranks; ++r) {
                input(next.get(), e, r, seed);
                spec_.combine(acc.get(), next.get(), out.get());
                acc.swap(out);
            }
            store(origin, e, acc.get());
        }
    }

    std::string compare(const char* got, const char* want, int count) const override {
        for (int e = 0; e < count; ++e) {
            for (size_t j = 0; j < arity(); ++j) {
                const T g = load(got, e, j), w = load(want, e, j);
                if (!spec_.same(g, w)) {
                    return "element " + std::to_string(e) + " value " + std::to_string(j) + ": got " + spec_.show(g) +
                           ", expected " + spec_.show(w);
                }
            }
        }
        return "";
    }

private:
    size_t arity() const { return spec_.displacements.size(); }
    // Values with their padding (long double's, a struct's) zeroed, so buffers hold no undefined bytes and
    // compare equal byte for byte. Not std::vector: T may be bool.
    static std::unique_ptr<T[]> zeroed(size_t n) {
        std::unique_ptr<T[]> values(new T[n]);
        std::memset(static_cast<void*>(values.get()), 0, n * sizeof(T));
        return values;
    }
    void input(T* element, int e, int rank, uint64_t seed) const {
        for (size_t j = 0; j < arity(); ++j) {
            spec_.value(element[j], rank, input_bits(seed, rank, static_cast<uint64_t>(e) * arity() + j));
        }
    }
    const char* at(const char* origin, int e, size_t j) const {
        return origin + static_cast<MPI_Aint>(e) * spec_.extent + spec_.displacements[j];
    }
    T load(const char* origin, int e, size_t j) const {
        T value;
        std::memcpy(static_cast<void*>(&value), at(origin, e, j), sizeof(T));
        return value;
    }
    void store(char* origin, int e, const T* element) const {
        for (size_t j = 0; j < arity(); ++j) {
            std::memcpy(const_cast<char*>(at(origin, e, j)), static_cast<const void*>(&element[j]), sizeof(T));
        }
    }

    Spec spec_;
};

}  // namespace redux_test
