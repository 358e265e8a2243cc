#include "user_ops.hpp"

#include <cstddef>
#include <cstdio>
#include <cstdlib>

namespace redux_test {
namespace {

int delete_value_layout(MPI_Datatype, int, void* attribute, void*) {
    delete static_cast<ValueLayout*>(attribute);
    return MPI_SUCCESS;
}

int free_value_layout_keyval(MPI_Comm, int, void*, void* keyval) {
    MPI_Type_free_keyval(static_cast<int*>(keyval));
    return MPI_SUCCESS;
}

void matrix_function(void* in, void* inout, int* len, MPI_Datatype* datatype) {
    const ValueLayout& layout = value_layout_of(*datatype);
    for (int k = 0; k < *len; ++k) {
        const char* a = static_cast<const char*>(in) + k * layout.extent;
        char* b = static_cast<char*>(inout) + k * layout.extent;
        uint32_t x[4], y[4], product[4];
        for (size_t j = 0; j < 4; ++j) {
            std::memcpy(&x[j], a + layout.displacements[j], sizeof(uint32_t));
            std::memcpy(&y[j], b + layout.displacements[j], sizeof(uint32_t));
        }
        multiply(x, y, product);
        for (size_t j = 0; j < 4; ++j) std::memcpy(b + layout.displacements[j], &product[j], sizeof(uint32_t));
    }
}

void packed_matrix_function(void* in, void* inout, int* len, MPI_Datatype*) {
    const auto* a = static_cast<const uint64_t*>(in);
    auto* b = static_cast<uint64_t*>(inout);
    for (int k = 0; k < *len; ++k) b[k] = multiply_packed(a[k], b[k]);
}

void sum_function(void* in, void* inout, int* len, MPI_Datatype*) {
    const auto* a = static_cast<const uint32_t*>(in);
    auto* b = static_cast<uint32_t*>(inout);
    for (int k = 0; k < *len; ++k) b[k] += a[k];
}

struct CountAndPeak {
    int32_t count;
    double peak;
    bool operator==(const CountAndPeak& o) const { return count == o.count && peak == o.peak; }
};

CountAndPeak combine_count_and_peak(const CountAndPeak& a, const CountAndPeak& b) {
    return {static_cast<int32_t>(static_cast<uint32_t>(a.count) + static_cast<uint32_t>(b.count)),
            a.peak > b.peak ? a.peak : b.peak};
}

void struct_function(void* in, void* inout, int* len, MPI_Datatype* datatype) {
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_get_extent(*datatype, &lb, &extent);
    for (int k = 0; k < *len; ++k) {
        CountAndPeak a, b;
        std::memcpy(&a.count, static_cast<char*>(in) + k * extent + offsetof(CountAndPeak, count), sizeof a.count);
        std::memcpy(&a.peak, static_cast<char*>(in) + k * extent + offsetof(CountAndPeak, peak), sizeof a.peak);
        char* out = static_cast<char*>(inout) + k * extent;
        std::memcpy(&b.count, out + offsetof(CountAndPeak, count), sizeof b.count);
        std::memcpy(&b.peak, out + offsetof(CountAndPeak, peak), sizeof b.peak);
        const CountAndPeak c = combine_count_and_peak(a, b);
        std::memcpy(out + offsetof(CountAndPeak, count), &c.count, sizeof c.count);
        std::memcpy(out + offsetof(CountAndPeak, peak), &c.peak, sizeof c.peak);
    }
}

}  // namespace

int value_layout_keyval() {
    static int keyval = MPI_KEYVAL_INVALID;
    if (keyval == MPI_KEYVAL_INVALID) {
        MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_value_layout, &keyval, nullptr);
        // Freed in MPI_Finalize, which deletes MPI_COMM_SELF's attributes first (no leak under valgrind).
        int at_finalize = MPI_KEYVAL_INVALID;
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_value_layout_keyval, &at_finalize, &keyval);
        MPI_Comm_set_attr(MPI_COMM_SELF, at_finalize, nullptr);
        MPI_Comm_free_keyval(&at_finalize);
    }
    return keyval;
}

const ValueLayout& value_layout_of(MPI_Datatype datatype) {
    ValueLayout* layout = nullptr;
    int found = 0;
    MPI_Type_get_attr(datatype, value_layout_keyval(), &layout, &found);
    if (!found) {
        std::fprintf(stderr, "user op called with a datatype that carries no ValueLayout\n");
        std::abort();
    }
    return *layout;
}

void set_value_layout(MPI_Datatype datatype, const ValueLayout& layout) {
    MPI_Type_set_attr(datatype, value_layout_keyval(), new ValueLayout(layout));
}

uint64_t multiply_packed(uint64_t a, uint64_t b) {
    auto entry = [](uint64_t m, int k) { return static_cast<uint32_t>((m >> (16 * k)) & 0xFFFF); };
    uint32_t x[4], y[4], product[4];
    for (int k = 0; k < 4; ++k) x[k] = entry(a, k), y[k] = entry(b, k);
    multiply(x, y, product);
    uint64_t out = 0;
    for (int k = 0; k < 4; ++k) out |= static_cast<uint64_t>(product[k] & 0xFFFF) << (16 * k);
    return out;
}

std::unique_ptr<Operand> packed_matrix_operand() {
    MPI_Op op = MPI_OP_NULL;
    MPI_Op_create(packed_matrix_function, 0, &op);
    ValueOperand<uint64_t>::Spec spec;
    spec.name = "packed 2x2 uint16 matrices in MPI_UINT64_T, non-commutative user op";
    spec.datatype = MPI_UINT64_T;
    spec.op = op;
    spec.value = [](uint64_t& out, int, uint64_t bits) { out = bits; };
    spec.combine = [](const uint64_t* left, const uint64_t* right, uint64_t* out) {
        *out = multiply_packed(*left, *right);
    };
    spec.owned = owning({}, op);
    return std::make_unique<ValueOperand<uint64_t>>(std::move(spec));
}

const char* layout_name(MatrixLayout layout) {
    switch (layout) {
        case MatrixLayout::contiguous:
            return "contiguous";
        case MatrixLayout::vector_with_gap:
            return "vector with gap";
        case MatrixLayout::struct_positive_lb:
            return "struct with lb 8";
        case MatrixLayout::struct_negative_lb:
            return "struct with lb -16";
        case MatrixLayout::resized_padded:
            return "resized to lb -8 extent 32";
        default:
            return "hindexed, permuted";
    }
}

std::unique_ptr<Operand> matrix_operand(MatrixLayout layout) {
    MPI_Datatype type = MPI_DATATYPE_NULL, inner = MPI_DATATYPE_NULL;
    ValueLayout entries;
    switch (layout) {
        case MatrixLayout::contiguous:
            MPI_Type_contiguous(4, MPI_UINT32_T, &type);
            entries = {16, {0, 4, 8, 12}};
            break;
        case MatrixLayout::vector_with_gap:
            MPI_Type_vector(2, 2, 3, MPI_UINT32_T, &type);
            entries = {20, {0, 4, 12, 16}};
            break;
        case MatrixLayout::struct_positive_lb:
        case MatrixLayout::struct_negative_lb: {
            const bool positive = layout == MatrixLayout::struct_positive_lb;
            const int lengths[2] = {2, 2};
            const MPI_Aint displacements[2] = {positive ? 8 : -16, positive ? 20 : 0};
            const MPI_Datatype types[2] = {MPI_UINT32_T, MPI_UINT32_T};
            MPI_Type_create_struct(2, lengths, displacements, types, &type);
            entries = positive ? ValueLayout{20, {8, 12, 20, 24}} : ValueLayout{24, {-16, -12, 0, 4}};
            break;
        }
        case MatrixLayout::resized_padded:
            MPI_Type_contiguous(4, MPI_UINT32_T, &inner);
            MPI_Type_create_resized(inner, -8, 32, &type);
            entries = {32, {0, 4, 8, 12}};
            break;
        case MatrixLayout::hindexed_permuted: {
            const int lengths[4] = {1, 1, 1, 1};
            const MPI_Aint displacements[4] = {12, 8, 4, 0};
            MPI_Type_create_hindexed(4, lengths, displacements, MPI_UINT32_T, &type);
            entries = {16, {12, 8, 4, 0}};
            break;
        }
    }
    MPI_Type_commit(&type);
    set_value_layout(type, entries);
    MPI_Op op = MPI_OP_NULL;
    MPI_Op_create(matrix_function, 0, &op);

    ValueOperand<uint32_t>::Spec spec;
    spec.name = std::string("2x2 uint32 matrices, ") + layout_name(layout) + ", non-commutative user op";
    spec.datatype = type;
    spec.op = op;
    spec.extent = entries.extent;
    spec.displacements = entries.displacements;
    spec.value = [](uint32_t& out, int, uint64_t bits) { out = static_cast<uint32_t>(bits); };
    spec.combine = multiply;
    std::vector<MPI_Datatype> types{type};
    if (inner != MPI_DATATYPE_NULL) types.push_back(inner);
    spec.owned = owning(std::move(types), op);
    return std::make_unique<ValueOperand<uint32_t>>(std::move(spec));
}

std::unique_ptr<Operand> user_sum_operand(bool declared_commutative) {
    MPI_Op op = MPI_OP_NULL;
    MPI_Op_create(sum_function, declared_commutative ? 1 : 0, &op);
    ValueOperand<uint32_t>::Spec spec;
    spec.name = std::string("uint32 wrap-around sum, user op declared ") +
                (declared_commutative ? "commutative" : "non-commutative");
    spec.datatype = MPI_UINT32_T;
    spec.op = op;
    spec.value = [](uint32_t& out, int, uint64_t bits) { out = static_cast<uint32_t>(bits); };
    spec.combine = [](const uint32_t* left, const uint32_t* right, uint32_t* out) { *out = *left + *right; };
    spec.owned = owning({}, op);
    return std::make_unique<ValueOperand<uint32_t>>(std::move(spec));
}

std::unique_ptr<Operand> struct_operand() {
    const int lengths[2] = {1, 1};
    const MPI_Aint displacements[2] = {offsetof(CountAndPeak, count), offsetof(CountAndPeak, peak)};
    const MPI_Datatype types[2] = {MPI_INT32_T, MPI_DOUBLE};
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Type_create_struct(2, lengths, displacements, types, &type);
    MPI_Type_commit(&type);
    MPI_Op op = MPI_OP_NULL;
    MPI_Op_create(struct_function, 1, &op);

    ValueOperand<CountAndPeak>::Spec spec;
    spec.name = "struct {int32 count; double peak}, commutative user op";
    spec.datatype = type;
    spec.op = op;
    spec.value = [](CountAndPeak& out, int, uint64_t bits) {
        out.count = static_cast<int32_t>(bits);
        out.peak = static_cast<double>((bits >> 32) % 1000) / 4;
    };
    spec.combine = [](const CountAndPeak* left, const CountAndPeak* right, CountAndPeak* out) {
        *out = combine_count_and_peak(*left, *right);
    };
    spec.show = [](const CountAndPeak& v) { return "{" + show_value(v.count) + ", " + show_value(v.peak) + "}"; };
    spec.owned = owning({type}, op);
    return std::make_unique<ValueOperand<CountAndPeak>>(std::move(spec));
}

}  // namespace redux_test
