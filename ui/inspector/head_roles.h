// The names a model gives its attention heads (the demo model's GGUF key snapdoc.attention.head_roles,
// docs/demo_model.md "Head roles"), for the inspector's strips, tooltip and head detail (issue 22). A
// strip is a cache head: per KV head it pools `n_heads / strips` query heads, and its name lists the
// named roles among them; per query head it is that head's own.
#pragma once

#include <QString>
#include <QStringList>

namespace snapdoc::ui {

class HeadRoles {
public:
    HeadRoles() = default;
    // Layer-major, n_layers × n_heads query heads, "" for an unnamed head; anything else (a count that
    // is not a multiple of n_heads) is treated as no names.
    HeadRoles(QStringList names, int n_heads);

    bool empty() const { return names_.isEmpty(); }
    // The role of strip `strip` of `layer` when each layer shows `strips` strips: its query heads'
    // distinct names joined by " / " ("" when none is named or the strips do not divide the heads).
    QString of(int layer, int strip, int strips) const;

private:
    QStringList names_;
    int n_heads_ = 0;
};

}  // namespace snapdoc::ui
