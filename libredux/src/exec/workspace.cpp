// Scratch buffers kept with a plan (workspace.hpp).
#include "exec/workspace.hpp"

namespace redux {

const std::vector<void*>& BufferSet::ensure(const ElementLayout& layout, int count, int buffers) {
    if (!(layout == layout_) || count != count_) {
        storage_.clear();
        origins_.clear();
        layout_ = layout;
        count_ = count;
    }
    while (static_cast<int>(storage_.size()) < buffers) {
        storage_.emplace_back(layout, count);
        origins_.push_back(storage_.back().data());
    }
    return origins_;
}

}  // namespace redux
