#include "ui/dialogs/compare_dialog.h"

#include <QDialogButtonBox>
#include <QGridLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

#include "engine/model/model_summary.h"
#include "ui/widgets/screen_fit.h"

namespace snapdoc::ui {

int common_prefix_length(const QString& a, const QString& b) {
    const int n = static_cast<int>(std::min(a.size(), b.size()));
    int i = 0;
    while (i < n && a[i] == b[i]) ++i;
    return i;
}

CompareDialog::CompareDialog(QWidget* parent) : QDialog(parent) {
    setObjectName("compareDialog");
    setWindowTitle(tr("Full cache vs SnapKV"));
    question_ = new QLabel(this);
    question_->setWordWrap(true);
    verdict_ = new QLabel(this);
    verdict_->setObjectName("compareVerdict");
    verdict_->setWordWrap(true);
    auto* grid = new QGridLayout;
    for (int side = 0; side < 2; ++side) {
        heads_[side] = new QLabel(side == 0 ? tr("<b>Full cache</b>") : tr("<b>SnapKV</b>"), this);
        heads_[side]->setWordWrap(true);
        answers_[side] = new QPlainTextEdit(this);
        answers_[side]->setReadOnly(true);
        answers_[side]->setObjectName(side == 0 ? "compareFull" : "compareSnapKv");
        grid->addWidget(heads_[side], 0, side);
        grid->addWidget(answers_[side], 1, side);
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(question_);
    layout->addLayout(grid, 1);
    layout->addWidget(verdict_);
    layout->addWidget(buttons);
    open_on_screen(*this, {900, 480});  // or less on a small screen
}

void CompareDialog::start(const QString& question) {
    question_->setText(tr("<b>Question:</b> %1").arg(question.toHtmlEscaped()));
    heads_[0]->setText(tr("<b>Full cache</b>"));
    heads_[1]->setText(tr("<b>SnapKV</b>"));
    for (auto* a : answers_) a->clear();
    verdict_->setText(tr("Answering from the full cache, then from the compressed one…"));
}

void CompareDialog::append(int side, const QString& text) {
    if (side < 0 || side > 1) return;
    QTextCursor c = answers_[side]->textCursor();
    c.movePosition(QTextCursor::End);
    c.insertText(text);
}

void CompareDialog::finish(const CompareResult& r) {
    auto bytes = [](int64_t b) { return QString::fromStdString(format_bytes(b)); };
    // The uncompressed cache (KV heads), as the inspector counts it: the "compressed" bytes of an
    // uncompressed per-query-head selection counted every query head (twice the figure at GQA 2).
    heads_[0]->setText(tr("<b>Full cache</b> — KV %1, %2 tokens at %3 tok/s")
                           .arg(bytes(r.full.kv_bytes_full))
                           .arg(r.full.generated_tokens)
                           .arg(r.full.decode_tokens_per_s(), 0, 'f', 1));
    heads_[1]->setText(tr("<b>SnapKV</b> — KV %1 (keeps %2% of entries), %3 tokens at %4 tok/s")
                           .arg(bytes(r.snapkv.kv_bytes_compressed))
                           .arg(100.0 * r.kept_fraction, 0, 'f', 1)
                           .arg(r.snapkv.generated_tokens)
                           .arg(r.snapkv.decode_tokens_per_s(), 0, 'f', 1));
    answers_[0]->setPlainText(r.full.answer);
    answers_[1]->setPlainText(r.snapkv.answer);
    const int common = common_prefix_length(r.full.answer, r.snapkv.answer);
    if (r.full.answer == r.snapkv.answer)
        verdict_->setText(tr("✔ The answers agree exactly."));
    else
        verdict_->setText(tr("✘ The answers differ after %1 of %2 characters.")
                              .arg(common)
                              .arg(std::max(r.full.answer.size(), r.snapkv.answer.size())));
}

void CompareDialog::fail(const QString& message) {
    verdict_->setText(tr("Comparison failed: %1").arg(message));
}

QString CompareDialog::verdict() const {
    return verdict_->text();
}

}  // namespace snapdoc::ui
