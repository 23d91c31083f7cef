#include "ui/worker/worker_types.h"

namespace snapdoc::ui {

void register_worker_types() {
    qRegisterMetaType<ModelInfo>();
    qRegisterMetaType<DocumentReady>();
    qRegisterMetaType<AnswerStats>();
    qRegisterMetaType<SelectionSnapshot>();
    qRegisterMetaType<CompareResult>();
}

}  // namespace snapdoc::ui
