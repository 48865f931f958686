"""A zip uploaded through the real file input: the model is added and drawn; a bad zip is refused."""
from tests.bad_checkpoints import files_of, zip_of
from tests.e2e.conftest import TIMEOUT_MS, screenshot, wait_idle
from viz_app.i18n import text

SIDEBAR = '[data-testid="stSidebar"]'
MODEL_VALUE = "() => document.querySelector(`input[aria-label='Model']`).value"


def upload(page, name: str, data: bytes) -> None:
    page.locator(f"{SIDEBAR} input[type=file]").set_input_files(
        {"name": name, "mimeType": "application/zip", "buffer": data})


def test_uploading_a_zip_adds_the_model_and_a_bad_zip_is_refused(open_page):
    page, rec = open_page("self_attention")
    wait_idle(page, charts=1)
    page.locator(SIDEBAR).get_by_text(text("own.title", "en"), exact=True).click()  # open the expander

    upload(page, "my-reverse.zip", zip_of(files_of()))
    page.get_by_text(text("own.loaded", "en", source="my-reverse.zip")).wait_for(timeout=TIMEOUT_MS)
    wait_idle(page, charts=1)
    assert page.evaluate(MODEL_VALUE) == "my-reverse (yours)"
    assert "model=own-" in page.url  # the view's link names the model by its content hash
    plots = page.locator(".js-plotly-plot").count()
    assert plots > 1

    upload(page, "bad.zip", zip_of({**files_of(), "../evil": b"owned"}, top=None))
    refusal = text("own.failed", "en", source="bad.zip", why=text("own.why.unsafe", "en"),
                   reason="the zip entry '../evil' climbs out of its folder with '..'.")
    page.get_by_text(refusal).wait_for(timeout=TIMEOUT_MS)
    wait_idle(page, charts=1)
    assert page.locator('[data-testid="stAlertContentError"]').first.inner_text() == refusal
    assert page.evaluate(MODEL_VALUE) == "my-reverse (yours)"  # the model the user had stays
    assert page.locator(".js-plotly-plot").count() == plots
    screenshot(page, "own-model-refused")
    assert page.locator('[data-testid="stException"]').count() == 0
    assert rec.page_errors == []
