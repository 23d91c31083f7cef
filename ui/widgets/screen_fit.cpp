#include "ui/widgets/screen_fit.h"

#include <QGuiApplication>
#include <QLayout>
#include <QMargins>
#include <QScreen>
#include <QWidget>
#include <algorithm>

namespace snapdoc::ui {

namespace {

// Room for the frame the window manager adds (title bar, borders). Before a window is shown its
// frame is unknown (frameGeometry() equals geometry()), so a typical one is assumed.
constexpr QMargins kFrameAllowance(4, 32, 4, 4);

QMargins frame_of(const QWidget& w) {
    const QRect f = w.frameGeometry();
    const QRect g = w.geometry();
    const QMargins m(g.left() - f.left(), g.top() - f.top(), f.right() - g.right(), f.bottom() - g.bottom());
    return m.isNull() ? kFrameAllowance : m;
}

int clamp_start(int start, int length, int area_start, int area_length) {
    // Too long for the area: the start (title bar, left edge) stays visible.
    return std::max(area_start, std::min(start, area_start + area_length - length));
}

// Gives `w` a client size of at most the available area less its frame, centred at `centre`
// and then moved inside that area.
void place(QWidget& w, QSize size, QPoint centre) {
    // The layout's minimum size is what Qt will enforce at show: know it now.
    if (w.layout()) w.layout()->activate();
    const QMargins frame = frame_of(w);
    const QRect area = available_geometry_for(w).marginsRemoved(frame);
    size = size.boundedTo(area.size()).expandedTo(w.minimumSize());
    QRect client(QPoint(), size);
    client.moveCenter(centre);
    client.moveLeft(clamp_start(client.left(), client.width(), area.left(), area.width()));
    client.moveTop(clamp_start(client.top(), client.height(), area.top(), area.height()));
    w.resize(size);
    // A top-level's position is its frame's top-left.
    w.move(client.topLeft() - QPoint(frame.left(), frame.top()));
}

}  // namespace

QRect available_geometry_for(const QWidget& window) {
    QScreen* screen = nullptr;
    if (const QWidget* parent = window.parentWidget()) screen = parent->window()->screen();
    if (!screen) screen = QGuiApplication::screenAt(window.geometry().center());
    if (!screen) screen = window.screen();
    return screen ? screen->availableGeometry() : QRect();
}

void open_on_screen(QWidget& window, const QSize& preferred) {
    const QWidget* parent = window.parentWidget() ? window.parentWidget()->window() : nullptr;
    const QRect area = available_geometry_for(window);
    const QPoint centre = parent && parent->isVisible() && area.contains(parent->geometry().center())
                              ? parent->geometry().center()
                              : area.center();
    place(window, preferred, centre);
}

void keep_on_screen(QWidget& window) {
    if (window.isMaximized() || window.isFullScreen()) return;
    place(window, window.size(), window.geometry().center());
}

}  // namespace snapdoc::ui
