#include "ui/main/downloads_status.h"

#include "ui/hub/download_row.h"

namespace snapdoc::ui {

DownloadsStatus::DownloadsStatus(QWidget* parent) : QPushButton(parent) {
    setObjectName("downloadsStatus");
    setFlat(true);
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("Downloads in Get models: click to see them"));
    hide();
}

void DownloadsStatus::watch(DownloadRow* row) {
    rows_.append(row);
    connect(row, &DownloadRow::progressed, this, &DownloadsStatus::refresh);
    connect(row, &QObject::destroyed, this, &DownloadsStatus::refresh, Qt::QueuedConnection);
    refresh();
}

void DownloadsStatus::set_paused_from_earlier_run(const QStringList& titles) {
    paused_on_disk_ = titles;
    refresh();
}

void DownloadsStatus::refresh() {
    rows_.removeIf([](const QPointer<DownloadRow>& row) { return row.isNull(); });
    QList<const DownloadRow*> running, paused;
    for (const auto& row : rows_) {
        if (row->running()) running.append(row.data());
        if (row->state() == hub::DownloadState::Paused) paused.append(row.data());
    }
    if (running.isEmpty()) {
        // Watched rows know better than the earlier run's list (they are those downloads, resumed or not).
        QStringList titles = paused_on_disk_;
        if (!rows_.isEmpty()) titles.clear();
        for (const DownloadRow* row : paused) titles.append(row->title());
        if (titles.isEmpty()) {
            hide();
            return;
        }
        QString text = tr("⏸ %1: paused").arg(titles.front());
        if (!paused.isEmpty() && paused.front()->percent() >= 0)
            text = tr("⏸ %1: paused at %2%").arg(titles.front()).arg(paused.front()->percent());
        if (titles.size() > 1) text += tr(" (+%n more)", nullptr, static_cast<int>(titles.size() - 1));
        setText(text);
        show();
        return;
    }
    const DownloadRow* first = running.front();
    QString text = first->percent() >= 0 ? tr("⬇ %1: %2%").arg(first->title()).arg(first->percent())
                                         : tr("⬇ %1: starting").arg(first->title());
    if (running.size() > 1) text += tr(" (+%n more)", nullptr, static_cast<int>(running.size() - 1));
    setText(text);
    show();
}

}  // namespace snapdoc::ui
