#include "mpi/element_buffer.hpp"

#include "mpi/mpi_check.hpp"

#include <cstdint>
#include <cstring>

namespace redux {

// Programs repeat the same basic type: the last named type's layout is remembered (a named type's handle
// never changes, while a derived type's may be freed and reused), which saves four MPI calls per reduce.
int describe_layout(MPI_Datatype datatype, ElementLayout& layout) {
    thread_local MPI_Datatype last_named = MPI_DATATYPE_NULL;
    thread_local ElementLayout last_layout;
    if (datatype == last_named && datatype != MPI_DATATYPE_NULL) {
        layout = last_layout;
        return MPI_SUCCESS;
    }
    MPI_Aint lb = 0;
    REDUX_MPI(MPI_Type_get_extent(datatype, &lb, &layout.extent));
    REDUX_MPI(MPI_Type_get_true_extent(datatype, &layout.true_lb, &layout.true_extent));
    REDUX_MPI(MPI_Type_size(datatype, &layout.type_size));
    layout.contiguous = layout.extent == layout.true_extent && layout.type_size == layout.extent;
    int integers = 0, addresses = 0, types = 0, combiner = 0;
    REDUX_MPI(MPI_Type_get_envelope(datatype, &integers, &addresses, &types, &combiner));
    layout.named = combiner == MPI_COMBINER_NAMED;
    if (layout.named) {
        last_named = datatype;
        last_layout = layout;
    }
    return MPI_SUCCESS;
}

// The origin is storage - true_lb, which for a datatype of absolute addresses (true_lb = an address) lies far
// outside the allocation: computed on integers, since pointer arithmetic out of an object is undefined
// (UBSan: "pointer index expression ... overflowed"). MPI adds true_lb back before touching memory.
ElementBuffer::ElementBuffer(const ElementLayout& layout, int count)
    : storage_(new char[layout.span_bytes(count) + 1]),
      origin_(reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(storage_.get()) -
                                      static_cast<uintptr_t>(layout.true_lb))) {}

int copy_elements(const void* src, void* dst, int count, MPI_Datatype datatype, const ElementLayout& layout,
                  std::vector<char>& pack_scratch) {
    if (count == 0 || src == dst) return MPI_SUCCESS;
    if (layout.contiguous) {
        std::memcpy(static_cast<char*>(dst) + layout.true_lb, static_cast<const char*>(src) + layout.true_lb,
                    layout.span_bytes(count));
        return MPI_SUCCESS;
    }
    // Derived datatypes with holes: pack and unpack, which touches only the type's data.
    int packed_bytes = 0;
    REDUX_MPI(MPI_Pack_size(count, datatype, MPI_COMM_SELF, &packed_bytes));
    if (pack_scratch.size() < static_cast<size_t>(packed_bytes)) pack_scratch.resize(static_cast<size_t>(packed_bytes));
    int position = 0;
    REDUX_MPI(MPI_Pack(src, count, datatype, pack_scratch.data(), packed_bytes, &position, MPI_COMM_SELF));
    position = 0;
    REDUX_MPI(MPI_Unpack(pack_scratch.data(), packed_bytes, &position, dst, count, datatype, MPI_COMM_SELF));
    return MPI_SUCCESS;
}

}  // namespace redux
