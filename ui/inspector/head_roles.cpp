#include "ui/inspector/head_roles.h"

#include <algorithm>

namespace snapdoc::ui {

HeadRoles::HeadRoles(QStringList names, int n_heads) {
    const bool any = std::any_of(names.begin(), names.end(), [](const QString& n) { return !n.isEmpty(); });
    if (n_heads <= 0 || names.size() % n_heads != 0 || !any) return;
    names_ = std::move(names);
    n_heads_ = n_heads;
}

QString HeadRoles::of(int layer, int strip, int strips) const {
    if (names_.isEmpty() || strips <= 0 || n_heads_ % strips != 0) return {};
    const int group = n_heads_ / strips;  // query heads per strip (GQA per KV head), 1 per query head
    const qsizetype first = static_cast<qsizetype>(layer) * n_heads_ + static_cast<qsizetype>(strip) * group;
    if (layer < 0 || strip < 0 || strip >= strips || first + group > names_.size()) return {};
    QStringList named;
    for (int q = 0; q < group; ++q) {
        const QString& n = names_[first + q];
        if (!n.isEmpty() && !named.contains(n)) named << n;
    }
    return named.join(QStringLiteral(" / "));
}

}  // namespace snapdoc::ui
