#include "ui/chat/chat_delegate.h"

#include <QAbstractItemView>
#include <QAbstractTextDocumentLayout>
#include <QPainter>
#include <QTextDocument>

#include "ui/models/chat_model.h"

namespace snapdoc::ui {

namespace {

constexpr int kMargin = 6;   // around the card
constexpr int kPadding = 8;  // inside the card

struct Card {
    QString header, body, meta;
    bool user = false, failed = false;
};

Card card_of(const QModelIndex& index) {
    Card c;
    c.user = index.data(ChatModel::RoleRole).toString() == QLatin1String("user");
    c.failed = index.data(ChatModel::FailedRole).toBool();
    c.header = c.user ? QObject::tr("Question") : QObject::tr("Answer");
    c.body = index.data(Qt::DisplayRole).toString();
    if (index.data(ChatModel::StreamingRole).toBool()) c.body += QStringLiteral("▍");
    if (c.body.isEmpty()) c.body = QStringLiteral("…");
    c.meta = index.data(ChatModel::MetaRole).toString();
    return c;
}

int content_width(const QStyleOptionViewItem& option) {
    int w = option.rect.width();
    if (const auto* view = qobject_cast<const QAbstractItemView*>(option.widget))
        w = view->viewport()->width();
    return std::max(80, w - 2 * kMargin - 2 * kPadding);
}

void layout_text(QTextDocument& doc, const QString& text, const QFont& font, int width) {
    doc.setDefaultFont(font);
    doc.setDocumentMargin(0);
    doc.setPlainText(text);
    doc.setTextWidth(width);
}

QFont small_font(const QFont& f) {
    QFont s = f;
    s.setPointSizeF(f.pointSizeF() * 0.85);
    return s;
}

}  // namespace

QSize ChatDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
    const Card c = card_of(index);
    const int w = content_width(option);
    QTextDocument doc;
    layout_text(doc, c.body, option.font, w);
    const QFontMetrics fm(option.font), sm(small_font(option.font));
    int h = kMargin * 2 + kPadding * 2 + fm.height() + 4 + static_cast<int>(doc.size().height());
    if (!c.meta.isEmpty()) h += 4 + sm.height() * 2;
    return {w + 2 * kMargin + 2 * kPadding, h};
}

void ChatDelegate::paint(QPainter* p, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    const Card c = card_of(index);
    p->save();
    p->setRenderHint(QPainter::Antialiasing, true);
    const QRect card = option.rect.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    QColor fill = c.user ? QColor(236, 241, 250) : option.palette.color(QPalette::Base);
    if (c.failed) fill = QColor(253, 236, 236);
    p->setPen(QPen(option.state & QStyle::State_Selected ? option.palette.color(QPalette::Highlight)
                                                         : QColor(210, 214, 222)));
    p->setBrush(fill);
    p->drawRoundedRect(card, 6, 6);

    const QRect inner = card.adjusted(kPadding, kPadding, -kPadding, -kPadding);
    QFont bold = option.font;
    bold.setBold(true);
    p->setFont(bold);
    p->setPen(c.user ? QColor(40, 70, 140) : QColor(30, 110, 60));
    const QFontMetrics fm(option.font);
    p->drawText(QRect(inner.left(), inner.top(), inner.width(), fm.height()),
                Qt::AlignLeft | Qt::AlignVCenter, c.header);

    QTextDocument doc;
    layout_text(doc, c.body, option.font, inner.width());
    p->translate(inner.left(), inner.top() + fm.height() + 4);
    QAbstractTextDocumentLayout::PaintContext ctx;
    ctx.palette.setColor(QPalette::Text,
                         c.failed ? QColor(160, 30, 30) : option.palette.color(QPalette::Text));
    doc.documentLayout()->draw(p, ctx);
    p->translate(-inner.left(), -(inner.top() + fm.height() + 4));

    if (!c.meta.isEmpty()) {
        p->setFont(small_font(option.font));
        p->setPen(option.palette.color(QPalette::PlaceholderText));
        const QFontMetrics sm(small_font(option.font));
        const int top = inner.top() + fm.height() + 4 + static_cast<int>(doc.size().height()) + 4;
        p->drawText(QRect(inner.left(), top, inner.width(), sm.height() * 2),
                    Qt::AlignLeft | Qt::TextWordWrap, c.meta);
    }
    p->restore();
}

}  // namespace snapdoc::ui
