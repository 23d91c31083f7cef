// A model's facts for the model dialog and panel (what the user sees before loading it).
#pragma once

#include <QString>

#include "ui/worker/worker_types.h"

namespace snapdoc {
struct Model;
}

namespace snapdoc::ui {

ModelInfo describe_model(const Model& model, const QString& path);

// Multi-line, human-readable description (the model dialog's body).
QString model_info_text(const ModelInfo& info);

}  // namespace snapdoc::ui
