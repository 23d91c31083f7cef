#include "tests/ui/support/layout_probe.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QScrollArea>
#include <QScrollBar>
#include <QTextEdit>
#include <vector>

namespace snapdoc::test {

namespace {

bool inside_combo(const QWidget* w) {
    for (const QWidget* p = w->parentWidget(); p; p = p->parentWidget())
        if (qobject_cast<const QComboBox*>(p) || qobject_cast<const QAbstractSpinBox*>(p)) return true;
    return false;
}

bool is_control(QWidget* w) {
    if (qobject_cast<QScrollBar*>(w) || inside_combo(w)) return false;
    if (auto* l = qobject_cast<QLabel*>(w)) return !l->text().trimmed().isEmpty() || !l->pixmap().isNull();
    return qobject_cast<QAbstractButton*>(w) || qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QComboBox*>(w) ||
           qobject_cast<QAbstractSlider*>(w) || qobject_cast<QLineEdit*>(w) || qobject_cast<QAbstractItemView*>(w) ||
           qobject_cast<QPlainTextEdit*>(w) || qobject_cast<QTextEdit*>(w) || qobject_cast<QProgressBar*>(w);
}

QString name_of(QWidget* w) {
    QString text;
    if (auto* b = qobject_cast<QAbstractButton*>(w)) text = b->text();
    if (auto* l = qobject_cast<QLabel*>(w)) text = l->text().left(40);
    QString n = w->objectName().isEmpty() ? QStringLiteral("?") : w->objectName();
    n += QStringLiteral(" (") + QString::fromLatin1(w->metaObject()->className()) + QStringLiteral(")");
    if (!text.isEmpty()) n += QStringLiteral(" “") + text + QStringLiteral("”");
    return n;
}

// The scroll area whose viewport is `w`, if any.
QAbstractScrollArea* scroll_area_of_viewport(QWidget* w) {
    auto* sa = qobject_cast<QAbstractScrollArea*>(w ? w->parentWidget() : nullptr);
    return sa && sa->viewport() == w ? sa : nullptr;
}

// How far a scroll bar can move the content, 0 when the user has no bar to move it with.
int scroll_room(QScrollBar* bar, Qt::ScrollBarPolicy policy) {
    return policy == Qt::ScrollBarAlwaysOff ? 0 : bar->maximum();
}

QString problem_of(QWidget& root, QWidget* w) {
    // Squeezed below its own minimum: drawn, but not usable (a spin box without its digits).
    const QSize min = w->minimumSizeHint();
    auto* label = qobject_cast<QLabel*>(w);
    const bool wraps = label && label->wordWrap();
    if (!wraps && min.isValid() && w->width() + 2 < min.width())
        return QStringLiteral("squeezed to %1 px wide (needs %2)").arg(w->width()).arg(min.width());
    if (w->hasHeightForWidth() && w->height() + 2 < w->heightForWidth(w->width()))
        return QStringLiteral("squeezed to %1 px high (needs %2)").arg(w->height()).arg(w->heightForWidth(w->width()));
    QRect r = w->rect();
    QWidget* cur = w;
    while (cur != &root) {
        QWidget* parent = cur->parentWidget();
        if (!parent) return {};
        if (QAbstractScrollArea* sa = scroll_area_of_viewport(parent)) {
            // `r` is in the scrolled content's coordinates: reachable when a scroll bar can bring it
            // inside the viewport.
            const int hroom = scroll_room(sa->horizontalScrollBar(), sa->horizontalScrollBarPolicy());
            const int vroom = scroll_room(sa->verticalScrollBar(), sa->verticalScrollBarPolicy());
            const int cx = cur->pos().x() + sa->horizontalScrollBar()->value();
            const int cy = cur->pos().y() + sa->verticalScrollBar()->value();
            const QRect content = r.translated(cx, cy);
            const QRect reach(0, 0, parent->width() + hroom, parent->height() + vroom);
            if (!reach.adjusted(-1, -1, 1, 1).contains(content))
                return QStringLiteral("outside the reach of scroll area %1 (%2,%3 %4×%5 in a %6×%7 reach)")
                    .arg(name_of(sa))
                    .arg(content.x())
                    .arg(content.y())
                    .arg(content.width())
                    .arg(content.height())
                    .arg(reach.width())
                    .arg(reach.height());
            // Once scrolled to, it sits inside the viewport.
            r = QRect(parent->pos(), r.size().boundedTo(parent->size()));
            cur = sa;
            continue;
        }
        r.translate(cur->pos());
        if (!parent->rect().adjusted(-1, -1, 1, 1).contains(r))
            return QStringLiteral("clipped by %1 (%2,%3 %4×%5 in %6×%7)")
                .arg(name_of(parent))
                .arg(r.x())
                .arg(r.y())
                .arg(r.width())
                .arg(r.height())
                .arg(parent->width())
                .arg(parent->height());
        cur = parent;
    }
    return {};
}


// The nearest ancestor whose content scrolls (controls under different ones are clipped apart).
QWidget* scroll_context(QWidget* w) {
    for (QWidget* p = w->parentWidget(); p; p = p->parentWidget())
        if (scroll_area_of_viewport(p)) return p;
    return nullptr;
}

bool is_ancestor(const QWidget* a, const QWidget* w) {
    for (const QWidget* p = w->parentWidget(); p; p = p->parentWidget())
        if (p == a) return true;
    return false;
}

}  // namespace

QStringList unreachable_controls(QWidget& root) {
    QStringList out;
    std::vector<QWidget*> shown;
    for (QWidget* w : root.findChildren<QWidget*>()) {
        if (!w->isVisible() || w->window() != &root || !is_control(w)) continue;
        shown.push_back(w);
        const QString p = problem_of(root, w);
        if (!p.isEmpty()) out << name_of(w) + QStringLiteral(": ") + p;
    }
    // Two controls drawn over each other: a row that wrapped without getting the height for it.
    for (std::size_t i = 0; i < shown.size(); ++i)
        for (std::size_t j = i + 1; j < shown.size(); ++j) {
            QWidget* a = shown[i];
            QWidget* b = shown[j];
            if (is_ancestor(a, b) || is_ancestor(b, a) || scroll_context(a) != scroll_context(b)) continue;
            const QRect ra(a->mapTo(&root, QPoint(0, 0)), a->size());
            const QRect rb(b->mapTo(&root, QPoint(0, 0)), b->size());
            const QRect both = ra.intersected(rb);
            if (both.width() > 2 && both.height() > 2)
                out << name_of(a) + QStringLiteral(": drawn over by ") + name_of(b);
        }
    return out;
}

int reachable_control_count(QWidget& root) {
    int n = 0;
    for (QWidget* w : root.findChildren<QWidget*>())
        if (w->isVisible() && w->window() == &root && is_control(w)) ++n;
    return n;
}

}  // namespace snapdoc::test
