#include "exec/element_buffer.hpp"

#include "exec/mpi_check.hpp"

#include <cstring>
#include <vector>

namespace redux {

int describe_layout(MPI_Datatype datatype, ElementLayout& layout) {
    MPI_Aint lb = 0;
    REDUX_MPI(MPI_Type_get_extent(datatype, &lb, &layout.extent));
    REDUX_MPI(MPI_Type_get_true_extent(datatype, &layout.true_lb, &layout.true_extent));
    REDUX_MPI(MPI_Type_size(datatype, &layout.type_size));
    layout.contiguous = layout.extent == layout.true_extent && layout.type_size == layout.extent;
    int integers = 0, addresses = 0, types = 0, combiner = 0;
    REDUX_MPI(MPI_Type_get_envelope(datatype, &integers, &addresses, &types, &combiner));
    layout.named = combiner == MPI_COMBINER_NAMED;
    return MPI_SUCCESS;
}

ElementBuffer::ElementBuffer(const ElementLayout& layout, int count)
    : storage_(new char[layout.span_bytes(count) + 1]), origin_(storage_.get() - layout.true_lb) {}

int copy_elements(const void* src, void* dst, int count, MPI_Datatype datatype, const ElementLayout& layout) {
    if (count == 0 || src == dst) return MPI_SUCCESS;
    if (layout.contiguous) {
        std::memcpy(static_cast<char*>(dst) + layout.true_lb, static_cast<const char*>(src) + layout.true_lb,
                    layout.span_bytes(count));
        return MPI_SUCCESS;
    }
    // Derived datatypes with holes: pack and unpack, which touches only the type's data.
    int packed_bytes = 0;
    REDUX_MPI(MPI_Pack_size(count, datatype, MPI_COMM_SELF, &packed_bytes));
    std::vector<char> packed(static_cast<size_t>(packed_bytes));
    int position = 0;
    REDUX_MPI(MPI_Pack(src, count, datatype, packed.data(), packed_bytes, &position, MPI_COMM_SELF));
    position = 0;
    REDUX_MPI(MPI_Unpack(packed.data(), packed_bytes, &position, dst, count, datatype, MPI_COMM_SELF));
    return MPI_SUCCESS;
}

}  // namespace redux
