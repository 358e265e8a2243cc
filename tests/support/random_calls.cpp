#include "random_calls.hpp"

#include "predefined_ops.hpp"
#include "user_ops.hpp"

#include <cstdlib>

namespace redux_test {

std::vector<std::unique_ptr<Operand>> mixed_operands() {
    std::vector<std::unique_ptr<Operand>> out;
    out.push_back(predefined_operand<int64_t>("MPI_INT64_T", MPI_INT64_T, MPI_SUM));
    out.push_back(predefined_operand<double>("MPI_DOUBLE", MPI_DOUBLE, MPI_MAX));
    out.push_back(predefined_operand<uint32_t>("MPI_UINT32_T", MPI_UINT32_T, MPI_BXOR));
    out.push_back(predefined_operand<Pair<int, int>>("MPI_2INT", MPI_2INT, MPI_MINLOC));
    out.push_back(packed_matrix_operand());
    out.push_back(matrix_operand(MatrixLayout::contiguous));
    out.push_back(matrix_operand(MatrixLayout::struct_negative_lb));
    out.push_back(matrix_operand(MatrixLayout::resized_padded));
    out.push_back(user_sum_operand(false));
    out.push_back(struct_operand());
    MPI_Datatype vector = MPI_DATATYPE_NULL;
    MPI_Type_vector(3, 1, 2, MPI_INT, &vector);
    MPI_Type_commit(&vector);
    out.push_back(user_sum_on<int>("vector(3, 1, 2, MPI_INT)", vector, {20, {0, 8, 16}}, {vector}));
    return out;
}

uint64_t test_seed(uint64_t fallback) {
    const char* text = std::getenv("REDUX_TEST_SEED");
    return text != nullptr && *text != '\0' ? std::strtoull(text, nullptr, 10) : fallback;
}

int random_count(std::mt19937_64& random) {
    const int bucket = static_cast<int>(random() % 10);
    if (bucket < 1) return 0;
    if (bucket < 5) return 1 + static_cast<int>(random() % 16);
    if (bucket < 8) return 17 + static_cast<int>(random() % 300);
    return 317 + static_cast<int>(random() % 4684);
}

}  // namespace redux_test
