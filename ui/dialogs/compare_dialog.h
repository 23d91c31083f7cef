// Full cache vs SnapKV, side by side: both answers to the same question as they stream, the KV
// memory and kept fraction of each, and whether the answers agree (and where they part).
#pragma once

#include <QDialog>

#include "ui/worker/worker_types.h"

class QLabel;
class QPlainTextEdit;

namespace snapdoc::ui {

class CompareDialog : public QDialog {
    Q_OBJECT
public:
    explicit CompareDialog(QWidget* parent = nullptr);

    void start(const QString& question);
    void append(int side, const QString& text);
    void finish(const CompareResult& result);
    void fail(const QString& message);
    QString verdict() const;

private:
    QLabel* question_;
    QLabel* heads_[2];
    QPlainTextEdit* answers_[2];
    QLabel* verdict_;
};

// Characters the two answers share from the start; equal to both lengths when they agree.
int common_prefix_length(const QString& a, const QString& b);

}  // namespace snapdoc::ui
