"""`datasets.train --resume` and the paths it is given: a run that is not resumable, or
a missing checkpoint or path, is refused in one line (exit 2) before ultralytics sees it,
since ultralytics would start a fresh run on its own defaults (ImageNet, downloaded); and
ultralytics, once loaded by `datasets.train`, cannot download at all."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.train

pytest.importorskip("ultralytics")
torch = pytest.importorskip("torch")


def _checkpoint(run, **kw) -> None:
    """A `last.pt` as ultralytics writes it: each epoch (`epoch` >= 0 and the optimizer), or
    at the end (both stripped, `strip_optimizer`)."""
    weights = run / "weights"
    weights.mkdir(parents=True)
    torch.save({"model": None, **kw}, weights / "last.pt")


def _main(argv, tmp_path, monkeypatch, capsys) -> tuple[int, str]:
    from datasets.train import main

    monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path / "yolo-config"))
    monkeypatch.chdir(tmp_path)  # ultralytics' own runs/ and datasets/ would land here
    rc = main([*argv, "--project", str(tmp_path / "runs"), "--out", str(tmp_path / "models")])
    return rc, capsys.readouterr().err


def _untouched(tmp_path) -> None:
    """Nothing trained, exported or fetched: only the refused run and the config remain."""
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "yolo-config") == ["data", "runs"]
    assert [p.name for p in (tmp_path / "runs").iterdir()] == ["cls"]
    assert [p.name for p in (tmp_path / "runs" / "cls").iterdir()] == ["r1"]


@pytest.fixture()
def data(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    return d


def test_a_finished_run_is_not_resumed(tmp_path, monkeypatch, capsys, data) -> None:
    _checkpoint(tmp_path / "runs" / "cls" / "r1", epoch=-1, optimizer=None,
                train_args={"epochs": 4, "data": str(data), "time": None},
                train_results={"epoch": [1, 2, 3, 4]})
    rc, err = _main(["cls", "--resume", "--name", "r1"], tmp_path, monkeypatch, capsys)
    assert rc == 2
    assert err.strip().splitlines() == [
        "python -m datasets.train: error: --resume: run r1 finished all its 4 epochs: nothing to resume; "
        f"start a new --name, or train from it with --init {tmp_path / 'runs' / 'cls' / 'r1' / 'weights' / 'last.pt'}"]
    _untouched(tmp_path)


def test_a_run_stopped_by_its_time_limit_is_finished_too(tmp_path, monkeypatch, capsys, data) -> None:
    # ultralytics ends a --time run as a finished one: optimizer stripped, epoch -1
    _checkpoint(tmp_path / "runs" / "cls" / "r1", epoch=-1, optimizer=None,
                train_args={"epochs": 9, "data": str(data), "time": 0.01},
                train_results={"epoch": [1, 2, 3]})
    rc, err = _main(["cls", "--resume", "--name", "r1", "--data", str(data)], tmp_path, monkeypatch, capsys)
    assert rc == 2 and len(err.strip().splitlines()) == 1
    assert "run r1 stopped at its --time limit (0.01 h) after 3 epochs" in err and "nothing to resume" in err
    _untouched(tmp_path)


def test_a_run_that_saved_its_last_epoch_is_finished(tmp_path, monkeypatch, capsys, data) -> None:
    # killed after its last epoch was saved, before ultralytics stripped it: nothing left to train
    _checkpoint(tmp_path / "runs" / "cls" / "r1", epoch=3, optimizer={"state": {}},
                train_args={"epochs": 4, "data": str(data)})
    rc, err = _main(["cls", "--resume", "--name", "r1"], tmp_path, monkeypatch, capsys)
    assert rc == 2 and "run r1 finished all its 4 epochs" in err
    _untouched(tmp_path)


def test_resume_without_a_checkpoint_or_data_names_what_is_missing(tmp_path, monkeypatch, capsys, data) -> None:
    (tmp_path / "runs" / "cls" / "r1").mkdir(parents=True)
    rc, err = _main(["cls", "--resume", "--name", "r1"], tmp_path, monkeypatch, capsys)
    assert rc == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    last = tmp_path / "runs" / "cls" / "r1" / "weights" / "last.pt"
    assert f"run r1 has no checkpoint to resume ({last} does not exist), and no --data to start it from" in err
    _untouched(tmp_path)


def test_an_interrupted_run_resumes_and_its_data_must_be_there(tmp_path, data) -> None:
    from datasets.train import resume_problem

    run = tmp_path / "runs" / "cls" / "r1"
    _checkpoint(run, epoch=1, optimizer={"state": {}}, train_args={"epochs": 4, "data": str(data)})
    assert resume_problem(run, None) is None
    data.rmdir()
    assert resume_problem(run, None) == (f"--resume: run r1 was trained on {data}, which is not there now; "
                                         "pass --data to point at it")
    assert resume_problem(run, str(tmp_path)) is None  # --data points at it
    assert resume_problem(tmp_path / "runs" / "cls" / "none", str(tmp_path)) is None  # no run yet: starts one


@pytest.mark.parametrize("flag", ["--data", "--init"])
def test_a_missing_path_is_refused_not_downloaded(tmp_path, monkeypatch, capsys, flag) -> None:
    argv = ["cls", "--data", str(tmp_path), flag, "imagenet10" if flag == "--data" else "yolo11n-cls.pt"]
    rc, err = _main(argv, tmp_path, monkeypatch, capsys)
    assert rc == 2 and err.strip().endswith("does not exist") and not (tmp_path / "runs").exists()
    rc, err = _main(["export", "cls", "--weights", "yolo11n-cls.pt"], tmp_path, monkeypatch, capsys)
    assert rc == 2 and "--weights yolo11n-cls.pt does not exist" in err


def test_ultralytics_cannot_download(tmp_path, monkeypatch) -> None:
    from datasets.train import _yolo

    monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path / "yolo-config"))
    monkeypatch.chdir(tmp_path)
    _yolo()
    from ultralytics.data import utils as data_utils
    from ultralytics.utils import DATASETS_DIR, downloads

    datasets_dir_was_there = DATASETS_DIR.exists()  # ultralytics' own, beside the checkout

    with pytest.raises(RuntimeError, match="never reaches the network"):
        downloads.attempt_download_asset("yolo11n-cls.pt")  # not here: a GitHub release asset
    with pytest.raises(RuntimeError, match="never reaches the network"):
        data_utils.check_cls_dataset("imagenet10")  # ultralytics' default classification set
    with pytest.raises(RuntimeError, match="never reaches the network"):
        downloads.download("https://ultralytics.com/assets/imagenet10.zip", dir=tmp_path / "d")
    assert not (tmp_path / "yolo11n-cls.pt").exists() and not (tmp_path / "d").exists()
    assert DATASETS_DIR.exists() == datasets_dir_was_there
