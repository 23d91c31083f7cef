#include "ui/hub/catalogue_fit.h"

#include <QObject>
#include <QString>

#include "engine/session/prefill_estimate.h"
#include "ui/widgets/number_format.h"

namespace snapdoc::ui {

std::shared_ptr<const CatalogueFit> compute_catalogue_fit(std::shared_ptr<const hub::Catalogue> catalogue,
                                                          const hub::MachineMemory& machine,
                                                          const hub::FitOptions& options) {
    auto fit = std::make_shared<CatalogueFit>();
    fit->catalogue = std::move(catalogue);
    fit->machine = machine;
    fit->options = options;
    std::vector<hub::FitEstimate> estimates;
    for (const hub::CatalogueEntry& e : fit->catalogue->models)
        for (const hub::CatalogueFile& f : e.files) {
            fit->rows.push_back({&e, &f, hub::estimate_fit(e, f, machine, options)});
            estimates.push_back(fit->rows.back().fit);
        }
    fit->recommended = hub::recommend(estimates, options);
    return fit;
}

QString short_duration(double seconds) {
    QString s = QString::fromStdString(format_duration(seconds));
    if (s.startsWith(QLatin1String("about "))) s = s.mid(6);
    return s;
}

QString token_count(int64_t tokens) {
    return QObject::tr("%1 tokens").arg(with_commas(tokens));
}

}  // namespace snapdoc::ui
