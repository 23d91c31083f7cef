#include "ui/widgets/app_theme.h"

#include <QApplication>
#include <QEvent>
#include <QWidget>
#include <optional>

#include "ui/widgets/theme_colors.h"

namespace snapdoc::ui {

namespace {

std::optional<QPalette>& platform_palette() {
    static std::optional<QPalette> saved;
    return saved;
}

// Re-applies a widget's light-theme text colour whenever its palette changes. The widget's own
// palette only sets WindowText, so the rest still follows the application's.
class PaletteColorFollower : public QObject {
public:
    PaletteColorFollower(QWidget* widget, QColor light) : QObject(widget), widget_(widget), light_(light) {
        widget->installEventFilter(this);
        apply();
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (watched == widget_ && event->type() == QEvent::PaletteChange && !applying_) apply();
        return false;
    }

private:
    void apply() {
        applying_ = true;  // setPalette below sends a PaletteChange of its own
        QPalette p = widget_->palette();
        p.setColor(QPalette::WindowText, for_palette(light_, QApplication::palette(widget_)));
        widget_->setPalette(p);
        applying_ = false;
    }
    QWidget* widget_;
    QColor light_;
    bool applying_ = false;
};

}  // namespace

Theme parse_theme(const QString& name) {
    if (name == QLatin1String("light")) return Theme::Light;
    if (name == QLatin1String("dark")) return Theme::Dark;
    return Theme::System;
}

QString theme_name(Theme theme) {
    switch (theme) {
        case Theme::Light:
            return QStringLiteral("light");
        case Theme::Dark:
            return QStringLiteral("dark");
        case Theme::System:
            break;
    }
    return QStringLiteral("system");
}

QPalette light_theme_palette() {
    QPalette p(QColor(239, 239, 239));  // Fusion's light window; the other roles derived from it
    p.setColor(QPalette::Base, Qt::white);
    p.setColor(QPalette::AlternateBase, QColor(245, 245, 245));
    p.setColor(QPalette::Text, Qt::black);
    p.setColor(QPalette::WindowText, Qt::black);
    p.setColor(QPalette::ButtonText, Qt::black);
    p.setColor(QPalette::Highlight, QColor(48, 140, 198));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0, 90, 180));
    p.setColor(QPalette::ToolTipBase, QColor(255, 255, 220));
    p.setColor(QPalette::ToolTipText, Qt::black);
    p.setColor(QPalette::PlaceholderText, QColor(120, 120, 120));
    return p;
}

QPalette dark_theme_palette() {
    QPalette p(QColor(53, 53, 58));
    const QColor text(228, 228, 228), dim(128, 128, 128);
    p.setColor(QPalette::Window, QColor(45, 45, 50));
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, QColor(30, 30, 34));
    p.setColor(QPalette::AlternateBase, QColor(40, 40, 45));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(53, 53, 58));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(255, 110, 110));
    p.setColor(QPalette::Highlight, QColor(42, 130, 218));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(110, 170, 240));
    p.setColor(QPalette::ToolTipBase, QColor(60, 60, 66));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, dim);
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, dim);
    return p;
}

void apply_theme(Theme theme) {
    auto& saved = platform_palette();
    if (!saved) saved = QApplication::palette();
    switch (theme) {
        case Theme::Light:
            QApplication::setPalette(light_theme_palette());
            break;
        case Theme::Dark:
            QApplication::setPalette(dark_theme_palette());
            break;
        case Theme::System:
            QApplication::setPalette(*saved);
            break;
    }
}

void follow_palette_color(QWidget* widget, const QColor& light_theme_color) {
    new PaletteColorFollower(widget, light_theme_color);
}

QString palette_color_name(const QColor& light_theme_color, const QWidget& widget) {
    return for_palette(light_theme_color, widget.palette()).name();
}

}  // namespace snapdoc::ui
