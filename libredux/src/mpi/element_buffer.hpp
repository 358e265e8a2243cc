// Where `count` elements of an MPI datatype live in memory, and scratch buffers laid out the same way.
//
// A datatype's data can start before its lower bound (true_lb < 0) and reach past its extent, so a buffer
// for count elements spans true_extent + (count - 1) * extent bytes and MPI is handed base - true_lb
// (MPI standard, "Lower-Bound and Upper-Bound Markers"; Open MPI's reduce allocates the same way).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace redux {

struct ElementLayout {
    MPI_Aint extent = 0;
    MPI_Aint true_lb = 0;
    MPI_Aint true_extent = 0;
    int type_size = 0;        // bytes of data in one element
    bool contiguous = false;  // data fills its span: a typed copy is a memcpy
    bool named = false;       // a predefined datatype (MPI_COMBINER_NAMED): its handle is never freed

    bool operator==(const ElementLayout& o) const {
        return extent == o.extent && true_lb == o.true_lb && true_extent == o.true_extent && type_size == o.type_size;
    }

    size_t span_bytes(int count) const {
        return count == 0 ? 0 : static_cast<size_t>(true_extent + static_cast<MPI_Aint>(count - 1) * extent);
    }

    // Whether libredux can lay out `count` elements: positive extents, and a span that does not overflow.
    // Other layouts (negative extents, say) are left to the MPI library.
    bool fits(int count) const {
        return extent > 0 && true_extent >= 0 && type_size >= 0 &&
               static_cast<MPI_Aint>(count) <= (static_cast<MPI_Aint>(1) << 40) / extent;
    }
};

int describe_layout(MPI_Datatype datatype, ElementLayout& layout);

// A scratch buffer for `count` elements: data() is what MPI calls take.
class ElementBuffer {
public:
    ElementBuffer() = default;
    ElementBuffer(const ElementLayout& layout, int count);
    void* data() const { return origin_; }

private:
    std::unique_ptr<char[]> storage_;
    void* origin_ = nullptr;
};

// Copies count elements from src to dst, both laid out as `datatype` (gaps in dst are left alone). Types with
// holes go through MPI_Pack into `pack_scratch`, which grows as needed and is kept by the caller, so repeated
// copies allocate nothing.
int copy_elements(const void* src, void* dst, int count, MPI_Datatype datatype, const ElementLayout& layout,
                  std::vector<char>& pack_scratch);

}  // namespace redux
