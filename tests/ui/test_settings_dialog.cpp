// The generation settings dialog edits every field and gives them back unchanged when untouched.
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QtTest>

#include "ui/dialogs/settings_dialog.h"

using snapdoc::services::GenerationSettings;
using snapdoc::ui::SettingsDialog;

class TestSettingsDialog : public QObject {
    Q_OBJECT
private slots:
    void round_trip() {
        GenerationSettings s;
        s.sampling.temperature = 0.8f;
        s.sampling.top_k = 20;
        s.sampling.top_p = 0.9f;
        s.sampling.min_p = 0.1f;
        s.sampling.repetition_penalty = 1.2f;
        s.sampling.seed = 7;
        s.max_new_tokens = 300;
        s.threads = 3;
        s.device = "cuda";
        s.chat_template = "mistral";
        s.ignore_context = true;
        SettingsDialog d(s);
        const GenerationSettings r = d.settings();
        QCOMPARE(r.sampling.temperature, 0.8f);
        QCOMPARE(r.sampling.top_k, 20);
        QCOMPARE(r.sampling.top_p, 0.9f);
        QCOMPARE(r.sampling.min_p, 0.1f);
        QCOMPARE(r.sampling.repetition_penalty, 1.2f);
        QCOMPARE(r.sampling.seed, uint64_t{7});
        QCOMPARE(r.max_new_tokens, 300);
        QCOMPARE(r.threads, 3);
        QCOMPARE(r.device, std::string("cuda"));
        QCOMPARE(r.chat_template, std::string("mistral"));
        QVERIFY(r.ignore_context);
    }

    void edits_and_accept() {
        SettingsDialog d(GenerationSettings{});
        d.findChild<QDoubleSpinBox*>("temperatureSpin")->setValue(1.5);
        d.findChild<QSpinBox*>("maxNewTokensSpin")->setValue(64);
        d.accept();
        QCOMPARE(d.result(), int(QDialog::Accepted));
        QCOMPARE(d.settings().sampling.temperature, 1.5f);
        QCOMPARE(d.settings().max_new_tokens, 64);
        QVERIFY(d.settings().chat_template.empty());  // "detect from the model"
        QCOMPARE(d.settings().device, std::string("auto"));
    }
};

QTEST_MAIN(TestSettingsDialog)
#include "test_settings_dialog.moc"
