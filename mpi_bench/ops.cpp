#include "ops.hpp"

#include "dynamic.hpp"

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <thread>
#include <type_traits>
#include <vector>

namespace redux_bench {
namespace {

// ---- MPI types of the element types ----------------------------------------------------------------------
template <class T>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<int>() {
    return MPI_INT;
}
template <>
MPI_Datatype mpi_type<long>() {
    return MPI_LONG;
}
template <>
MPI_Datatype mpi_type<float>() {
    return MPI_FLOAT;
}
template <>
MPI_Datatype mpi_type<double>() {
    return MPI_DOUBLE;
}

// MINLOC's pair, laid out as MPI's (value, int) pair types are.
template <class T>
struct Pair {
    T value;
    int index;
};
template <class T>
MPI_Datatype mpi_pair_type();
template <>
MPI_Datatype mpi_pair_type<int>() {
    return MPI_2INT;
}
template <>
MPI_Datatype mpi_pair_type<long>() {
    return MPI_LONG_INT;
}
template <>
MPI_Datatype mpi_pair_type<float>() {
    return MPI_FLOAT_INT;
}
template <>
MPI_Datatype mpi_pair_type<double>() {
    return MPI_DOUBLE_INT;
}

// ---- the user ops ------------------------------------------------------------------------------------------
// One op per process, so its cost lives in globals the user functions read.
long g_wait_ns_per_element = 0;
long g_wait_ns_per_call = 0;
bool g_wait_sleeps = false;
OpCostDraws g_cost_draws;  // --op-cost-cv

void wait_for(long nanoseconds) {
    if (nanoseconds <= 0) return;
#ifdef SMPI_H  // simulated ranks: the time is injected into the simulation (a sleep or a spin would cost none)
    smpi_execute(static_cast<double>(nanoseconds) * 1e-9);
    return;
#endif
    if (g_wait_sleeps) {
        std::this_thread::sleep_for(std::chrono::nanoseconds(nanoseconds));
        return;
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(nanoseconds);
    while (std::chrono::steady_clock::now() < until) {
    }
}

template <class T>
void sum_then_wait(void* in, void* inout, int* len, MPI_Datatype*) {
    const T* a = static_cast<const T*>(in);
    T* b = static_cast<T*>(inout);
    for (int i = 0; i < *len; ++i) b[i] = static_cast<T>(a[i] + b[i]);
    wait_for(g_cost_draws.cost_ns(g_wait_ns_per_call + g_wait_ns_per_element * *len));
}

// A 2x2 matrix [m0 m1; m2 m3] of integers modulo 2^bits.
template <class T>
struct Matrix {
    T m[4];
};

template <class T>
Matrix<T> multiply(const Matrix<T>& x, const Matrix<T>& y) {
    using U = std::make_unsigned_t<T>;
    auto mul_add = [](T a, T b, T c, T e) {
        return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)) +
                              static_cast<U>(static_cast<U>(c) * static_cast<U>(e)));
    };
    return {{mul_add(x.m[0], y.m[0], x.m[1], y.m[2]), mul_add(x.m[0], y.m[1], x.m[1], y.m[3]),
             mul_add(x.m[2], y.m[0], x.m[3], y.m[2]), mul_add(x.m[2], y.m[1], x.m[3], y.m[3])}};
}

// MPI's user function contract: inout = in o inout, `in` being the left (lower-ranked) operand.
template <class T>
void matmul2(void* in, void* inout, int* len, MPI_Datatype*) {
    const auto* a = static_cast<const Matrix<T>*>(in);
    auto* b = static_cast<Matrix<T>*>(inout);
    for (int i = 0; i < *len; ++i) b[i] = multiply(a[i], b[i]);
}

// ---- inputs ------------------------------------------------------------------------------------------------
long sum_input(int rank, long i) { return (i * 7 + rank * 3L) % 13 - 4; }
long prod_input(int rank, long i) {
    if ((i + rank) % 3 == 0) return -1;
    return (i + 2L * rank) % 7 == 0 && rank < 16 ? 2 : 1;  // at most 2^16 in magnitude: exact in float
}
long max_input(int rank, long i) { return (i * 31 + rank * 17L) % 101 - 50; }
long minloc_input(int rank, long i) { return (i * 13 + rank * 7L) % 29; }  // many ties: the lowest index wins
template <class T>
Matrix<T> matrix_input(int rank, long i) {
    return {{static_cast<T>(1 + rank % 2), static_cast<T>((i + rank) % 4), static_cast<T>((i * rank) % 3), 1}};
}

template <class T>
std::string show(const T& value) {
    std::ostringstream out;
    out << value;
    return out.str();
}
template <class T>
std::string show(const Pair<T>& pair) {
    return "(" + show(pair.value) + ", " + std::to_string(pair.index) + ")";
}
template <class T>
std::string show(const Matrix<T>& x) {
    return "[" + show(x.m[0]) + " " + show(x.m[1]) + "; " + show(x.m[2]) + " " + show(x.m[3]) + "]";
}

template <class T>
bool same(const T& a, const T& b) {
    return a == b;
}
template <class T>
bool same(const Pair<T>& a, const Pair<T>& b) {
    return a.value == b.value && a.index == b.index;
}
template <class T>
bool same(const Matrix<T>& a, const Matrix<T>& b) {
    return a.m[0] == b.m[0] && a.m[1] == b.m[1] && a.m[2] == b.m[2] && a.m[3] == b.m[3];
}

// The shared part of every op: comparison and corruption over elements of type E.
template <class E>
class TypedOp : public BenchOp {
public:
    long first_mismatch(const void* result, const void* expected, int count, std::string& description) const final {
        const E* got = static_cast<const E*>(result);
        const E* want = static_cast<const E*>(expected);
        for (int i = 0; i < count; ++i) {
            if (!same(got[i], want[i])) {
                description = "element " + std::to_string(i) + " of " + std::to_string(count) + " is " + show(got[i]) +
                              ", expected " + show(want[i]);
                return i;
            }
        }
        return -1;
    }

    void expected(int ranks, int count, void* result) const final {
        E* out = static_cast<E*>(result);
        std::vector<E> next(static_cast<size_t>(count));
        fill(0, count, out);
        for (int rank = 1; rank < ranks; ++rank) {
            fill(rank, count, next.data());
            for (int i = 0; i < count; ++i) out[i] = combine(out[i], next[static_cast<size_t>(i)]);
        }
    }

protected:
    // left o right, for the expected result (written without MPI).
    virtual E combine(const E& left, const E& right) const = 0;
};

// sum, prod, max, spin, delay on T.
template <class T>
class ElementwiseOp final : public TypedOp<T> {
public:
    explicit ElementwiseOp(const OpSpec& spec) : kind_(spec.kind) {
        this->datatype_ = mpi_type<T>();
        this->element_bytes_ = sizeof(T);
        switch (kind_) {
            case OpKind::sum:
                this->op_ = MPI_SUM;
                break;
            case OpKind::prod:
                this->op_ = MPI_PROD;
                break;
            case OpKind::max:
                this->op_ = MPI_MAX;
                break;
            default:  // spin, delay
                g_wait_ns_per_element = spec.cost_ns;
                g_wait_ns_per_call = spec.call_ns;
                g_wait_sleeps = kind_ == OpKind::delay;
                g_cost_draws = OpCostDraws(spec.cost_cv);
                MPI_Op_create(sum_then_wait<T>, spec.noncommutative ? 0 : 1, &this->op_);
                owns_op_ = true;
        }
    }
    ~ElementwiseOp() override {
        if (owns_op_) MPI_Op_free(&this->op_);
    }

    void fill(int rank, int count, void* buffer) const override {
        T* out = static_cast<T*>(buffer);
        for (int i = 0; i < count; ++i) out[i] = static_cast<T>(input(rank, i));
    }
    void corrupt(void* result) const override { static_cast<T*>(result)[0] += 1; }

private:
    long input(int rank, long i) const {
        switch (kind_) {
            case OpKind::prod:
                return prod_input(rank, i);
            case OpKind::max:
                return max_input(rank, i);
            default:
                return sum_input(rank, i);
        }
    }
    T combine(const T& left, const T& right) const override {
        switch (kind_) {
            case OpKind::prod:
                return static_cast<T>(left * right);
            case OpKind::max:
                return left < right ? right : left;
            default:
                return static_cast<T>(left + right);
        }
    }

    OpKind kind_;
    bool owns_op_ = false;
};

template <class T>
class MinLocOp final : public TypedOp<Pair<T>> {
public:
    MinLocOp() {
        this->datatype_ = mpi_pair_type<T>();
        this->op_ = MPI_MINLOC;
        MPI_Aint lb = 0, extent = 0;
        MPI_Type_get_extent(this->datatype_, &lb, &extent);
        this->element_bytes_ = static_cast<int>(extent);
    }
    void fill(int rank, int count, void* buffer) const override {
        auto* out = static_cast<Pair<T>*>(buffer);
        for (int i = 0; i < count; ++i) out[i] = {static_cast<T>(minloc_input(rank, i)), rank};
    }
    void corrupt(void* result) const override { static_cast<Pair<T>*>(result)[0].index += 1; }

private:
    Pair<T> combine(const Pair<T>& left, const Pair<T>& right) const override {
        if (right.value < left.value || (right.value == left.value && right.index < left.index)) return right;
        return left;
    }
};

template <class T>
class MatMulOp final : public TypedOp<Matrix<T>> {
public:
    MatMulOp() {
        MPI_Type_contiguous(4, mpi_type<T>(), &this->datatype_);
        MPI_Type_commit(&this->datatype_);
        MPI_Op_create(matmul2<T>, 0, &this->op_);
        this->element_bytes_ = static_cast<int>(sizeof(Matrix<T>));
    }
    ~MatMulOp() override {
        MPI_Op_free(&this->op_);
        MPI_Type_free(&this->datatype_);
    }
    void fill(int rank, int count, void* buffer) const override {
        auto* out = static_cast<Matrix<T>*>(buffer);
        for (int i = 0; i < count; ++i) out[i] = matrix_input<T>(rank, i);
    }
    void corrupt(void* result) const override { static_cast<Matrix<T>*>(result)[0].m[1] += 1; }

private:
    Matrix<T> combine(const Matrix<T>& left, const Matrix<T>& right) const override { return multiply(left, right); }
};

template <class T>
std::unique_ptr<BenchOp> make_typed(const OpSpec& spec) {
    switch (spec.kind) {
        case OpKind::minloc:
            return std::make_unique<MinLocOp<T>>();
        case OpKind::matmul2:
            if constexpr (std::is_integral_v<T>) return std::make_unique<MatMulOp<T>>();
            return nullptr;  // parse_op refuses it
        default:
            return std::make_unique<ElementwiseOp<T>>(spec);
    }
}

bool read_nanoseconds(const std::string& text, long& value) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 12) return false;
    value = std::strtol(text.c_str(), nullptr, 10);
    return true;
}

}  // namespace

std::optional<OpSpec> parse_op(const std::string& op_text, const std::string& datatype_text, bool noncommutative,
                               std::string& error) {
    OpSpec spec;
    const auto colon = op_text.find(':');
    const std::string name = op_text.substr(0, colon);
    const std::string argument = colon == std::string::npos ? "" : op_text.substr(colon + 1);
    static const std::pair<const char*, OpKind> kNames[] = {
        {"sum", OpKind::sum},         {"prod", OpKind::prod}, {"max", OpKind::max},    {"minloc", OpKind::minloc},
        {"matmul2", OpKind::matmul2}, {"spin", OpKind::spin}, {"delay", OpKind::delay}};
    bool known = false;
    for (const auto& [text, kind] : kNames) {
        if (name == text) {
            spec.kind = kind;
            known = true;
        }
    }
    if (!known) {
        error = "--op: unknown op '" + op_text + "' (sum, prod, max, minloc, matmul2, spin:NS, delay:NS)";
        return std::nullopt;
    }
    const bool costly = spec.kind == OpKind::spin || spec.kind == OpKind::delay;
    // NS per element, then optionally +CALL_NS per call.
    const auto plus = argument.find('+');
    if (costly && (colon == std::string::npos || !read_nanoseconds(argument.substr(0, plus), spec.cost_ns) ||
                   (plus != std::string::npos && !read_nanoseconds(argument.substr(plus + 1), spec.call_ns)))) {
        error = "--op: " + name + " needs a cost in nanoseconds per element, as " + name +
                ":NS with NS >= 0, and optionally per call, as " + name + ":NS+CALL_NS";
        return std::nullopt;
    }
    if (!costly && colon != std::string::npos) {
        error = "--op: " + name + " takes no argument";
        return std::nullopt;
    }
    if (noncommutative && !costly) {
        error = "--noncommutative applies to spin:NS and delay:NS (matmul2 is non-commutative already)";
        return std::nullopt;
    }
    spec.noncommutative = noncommutative;

    if (datatype_text.empty()) {
        spec.type = spec.kind == OpKind::matmul2 ? ElementType::int_ : ElementType::double_;
    } else if (datatype_text == "int") {
        spec.type = ElementType::int_;
    } else if (datatype_text == "long") {
        spec.type = ElementType::long_;
    } else if (datatype_text == "float") {
        spec.type = ElementType::float_;
    } else if (datatype_text == "double") {
        spec.type = ElementType::double_;
    } else {
        error = "--datatype: unknown type '" + datatype_text + "' (int, long, float, double)";
        return std::nullopt;
    }
    if (spec.kind == OpKind::matmul2 && (spec.type == ElementType::float_ || spec.type == ElementType::double_)) {
        error = "--op matmul2 needs --datatype int or long";
        return std::nullopt;
    }
    return spec;
}

std::string op_label(const OpSpec& spec) {
    static const char* const kNames[] = {"sum", "prod", "max", "minloc", "matmul2", "spin", "delay"};
    std::string label = kNames[static_cast<int>(spec.kind)];
    if (spec.kind == OpKind::spin || spec.kind == OpKind::delay) {
        label += ":" + std::to_string(spec.cost_ns);
        if (spec.call_ns > 0) label += "+" + std::to_string(spec.call_ns);
    }
    if (spec.noncommutative) label += "/noncommutative";
    return label;
}

std::string datatype_name(ElementType type) {
    switch (type) {
        case ElementType::int_:
            return "int";
        case ElementType::long_:
            return "long";
        case ElementType::float_:
            return "float";
        default:
            return "double";
    }
}

void seed_op_costs(int rank, long iteration) { g_cost_draws.seed(rank, iteration); }

std::unique_ptr<BenchOp> make_bench_op(const OpSpec& spec) {
    switch (spec.type) {
        case ElementType::int_:
            return make_typed<int>(spec);
        case ElementType::long_:
            return make_typed<long>(spec);
        case ElementType::float_:
            return make_typed<float>(spec);
        default:
            return make_typed<double>(spec);
    }
}

}  // namespace redux_bench
