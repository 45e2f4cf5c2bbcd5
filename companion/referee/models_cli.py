"""``companion models``: install and list speech models (click group)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import click

from companion.errors import ModelError
from companion.referee.models import MODELS, install, models_dir, status


@click.group()
def models() -> None:
    """Speech models: install the English vosk model, list what is installed,
    prune the players' own voice models."""


@models.command("install")
@click.argument("language")
@click.option("--dir", "root", type=click.Path(file_okay=False, path_type=Path),
              help="The models folder (default: $COMPANION_MODELS or the XDG data dir).")
@click.option("--url", help="Download from this address instead (a mirror).")
@click.option("--sha256", "sha", help="The sha256 the download must have (with --url).")
@click.option("--size", type=int, help="The size in bytes the download must have (with --url).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def install_cmd(language: str, root: Path | None, url: str | None, sha: str | None,
                size: int | None, quiet: bool) -> None:
    """Download, check (sha256) and unpack the vosk model for LANGUAGE (en)."""
    spec = MODELS.get(language)
    if spec is None:
        click.echo(f"companion: no model to install for language {language!r}; "
                   f"known: {sorted(MODELS)}", err=True)
        sys.exit(2)
    if url:
        spec = replace(spec, url=url, sha256=sha or spec.sha256, size=size or spec.size)
    try:
        install(spec, root=root, progress=not quiet, say=click.echo)
    except ModelError as exc:
        click.echo(f"companion: {exc}", err=True)
        sys.exit(1)


@models.command("list")
@click.option("--dir", "root", type=click.Path(file_okay=False, path_type=Path),
              help="The models folder.")
def list_cmd(root: Path | None) -> None:
    """List the known models and whether each is installed."""
    for spec, path in status(root):
        where = str(path) if path else "not installed"
        click.echo(f"{spec.language:<4}{spec.name:<32}{spec.size / 1e6:6.1f} MB  {where}")


@models.command("status")
@click.option("--dir", "root", type=click.Path(file_okay=False, path_type=Path),
              help="The models folder.")
def status_cmd(root: Path | None) -> None:
    """Say which recognizer the companion would use, and where models live."""
    from companion.referee.recognizer import pick_backend

    click.echo(f"models folder: {root or models_dir()}")
    for spec, path in status(root):
        click.echo(f"{spec.language}: {spec.name} {'installed' if path else 'not installed'}")
    backend, notice = pick_backend(None) if root is None else ("?", None)
    if root is None:
        click.echo(f"recognizer: {backend}" + (" (no English vosk model)" if notice else ""))
    from companion.referee import embedding

    model = embedding.model_path()
    click.echo("players' takes also compared by the speech-embedding model: "
               + (f"yes ({model})" if embedding.available()
                  else "no (its weights file is missing: install the companion again)"))
    from companion.referee import adaptation

    folder = adaptation.cache_dir()
    try:
        count, size = adaptation.kept_models(folder)
    except OSError as exc:
        click.echo(f"players' own voice models: cannot be read ({exc})")
    else:
        click.echo(f"players' own voice models: {count} in {folder} ({size / 1e6:.1f} MB); "
                   f"a table keeps the {adaptation.KEEP_MODELS} used last")


@models.command("prune")
@click.option("--keep", type=click.IntRange(min=0), default=None,
              help="How many to keep, those used last (default: as a table keeps them).")
def prune_cmd(keep: int | None) -> None:
    """Remove the players' own voice models but those used last. A model
    removed is built again from the player's takes when they next play."""
    from companion.referee import adaptation

    folder = adaptation.cache_dir()
    keep = adaptation.KEEP_MODELS if keep is None else keep
    try:
        removed = adaptation.prune(folder, keep) if folder.is_dir() else []
        count, size = adaptation.kept_models(folder)
    except OSError as exc:
        click.echo(f"companion: the voice models in {folder} cannot be read: {exc}", err=True)
        sys.exit(1)
    click.echo(f"removed {len(removed)} voice model(s); {count} kept in {folder} "
               f"({size / 1e6:.1f} MB)")
