// The compression controls: the log-scale budget slider, the constraints between fields, the
// memory estimate next to the budget, and configChanged on every change.
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSlider>
#include <QSpinBox>
#include <QtTest>

#include "ui/inspector/compression_controls.h"

using namespace snapdoc;
using namespace snapdoc::ui;

class TestCompressionControls : public QObject {
    Q_OBJECT
private slots:
    void slider_mapping_is_monotonic_and_round_trips() {
        const int lo = 33, hi = 131072;
        QCOMPARE(budget_from_slider(0, lo, hi), lo);
        QCOMPARE(budget_from_slider(kSliderSteps, lo, hi), hi);
        int last = 0;
        for (int v = 0; v <= kSliderSteps; v += 7) {
            const int b = budget_from_slider(v, lo, hi);
            QVERIFY(b >= last);
            last = b;
            QVERIFY(std::abs(slider_from_budget(b, lo, hi) - v) <= 1);
        }
        QCOMPARE(slider_from_budget(1, lo, hi), 0);  // clamped
        QCOMPARE(budget_from_slider(5, 10, 10), 10);
    }

    // Issue 23 item 12: a document refused as longer than the context while the panel held an
    // estimate for an earlier prompt kept showing that estimate, though docs/user-guide.md says the panel
    // says why. (The window passes the refusal straight to set_unavailable_reason; in the window
    // the refusals tried after a model change and after another document showed the reason
    // already, so the rule is checked here, on the panel.)
    void a_refusal_is_said_over_an_earlier_estimate() {
        CompressionControls c;
        c.set_shape({4, 8, 2, 16}, 4096);
        c.set_prompt_length(2000);
        auto* estimate = c.findChild<QLabel*>("budgetMemoryLabel");
        QVERIFY(estimate);
        QVERIFY2(estimate->text().startsWith(QString::fromUtf8("\u2248")), qPrintable(estimate->text()));
        c.set_unavailable_reason("The document is longer than the model's context.");
        QCOMPARE(estimate->text(), QString("KV memory: none. The document is longer than the model's context."));
    }

    void controls_emit_configs_and_estimate() {
        CompressionControls c;
        c.set_shape({4, 8, 2, 16}, 4096);
        c.set_prompt_length(2000);
        QSignalSpy spy(&c, &CompressionControls::configChanged);
        auto* slider = c.findChild<QSlider*>("budgetSlider");
        auto* spin = c.findChild<QSpinBox*>("budgetSpin");
        auto* estimate = c.findChild<QLabel*>("budgetMemoryLabel");
        QVERIFY(slider && spin && estimate);
        QVERIFY2(estimate->text().contains("uncompressed"), qPrintable(estimate->text()));
        const QString before = estimate->text();

        slider->setValue(slider->minimum());
        QCOMPARE(spy.count(), 1);
        const SnapKvConfig small = spy.last().at(0).value<SnapKvConfig>();
        QCOMPARE(small.budget, small.window + 1);
        QCOMPARE(spin->value(), small.budget);
        QVERIFY(estimate->text() != before);

        spin->setValue(512);
        QCOMPARE(c.config().budget, 512);
        QCOMPARE(slider->value(), slider_from_budget(512, spin->minimum(), spin->maximum()));
        // 4 layers × 2 KV heads × 512 × 16 × 2 × 2 B (f16) = 256 KiB
        QVERIFY2(estimate->text().contains("256.0 KiB"), qPrintable(estimate->text()));

        // A window at or above the budget pushes the budget up (budget > window always).
        c.findChild<QSpinBox*>("windowSpin")->setValue(200);
        spin->setValue(100);
        QVERIFY(c.config().budget > c.config().window);

        // An even kernel becomes odd.
        c.findChild<QSpinBox*>("kernelSpin")->setValue(4);
        QCOMPARE(c.config().kernel % 2, 1);

        c.findChild<QComboBox*>("poolingCombo")->setCurrentIndex(1);
        QVERIFY(c.config().pooling == Pooling::Avg);
        c.findChild<QComboBox*>("gqaCombo")->setCurrentIndex(1);
        QVERIFY(c.config().gqa == GqaMode::QueryHead);
        c.findChild<QComboBox*>("policyCombo")->setCurrentIndex(2);
        QVERIFY(c.config().policy == BudgetPolicy::Adaptive);
        const int before_off = spy.count();
        c.findChild<QCheckBox*>("snapkvEnabled")->setChecked(false);
        QCOMPARE(spy.count(), before_off + 1);
        QVERIFY(!spy.last().at(0).value<SnapKvConfig>().enabled);
        QVERIFY(!slider->isEnabled());
        for (const auto& args : spy)
            QVERIFY(!args.at(0).value<SnapKvConfig>().enabled ||
                    args.at(0).value<SnapKvConfig>().budget > args.at(0).value<SnapKvConfig>().window);

        // set_config does not echo a change.
        const int n = spy.count();
        c.set_config(SnapKvConfig{});
        QCOMPARE(spy.count(), n);
        QCOMPARE(spin->value(), SnapKvConfig{}.budget);
    }
};

QTEST_MAIN(TestCompressionControls)
#include "test_compression_controls.moc"
