from games.engine.geometry import geometry


def test_each_card_rests_on_the_two_below_it_and_the_base_on_none() -> None:
    geo = geometry(7)
    assert geo.size == 28 and geo.full_mask == 2**28 - 1
    apex, left_of_row_two = geo.index(0, 0), geo.index(1, 0)
    assert geo.cover_masks[apex] == (1 << geo.index(1, 0)) | (1 << geo.index(1, 1))
    assert geo.cover_masks[left_of_row_two] == (1 << geo.index(2, 0)) | (1 << geo.index(2, 1))
    assert all(geo.cover_masks[geo.index(6, c)] == 0 for c in range(7))


def test_row_masks_partition_the_pyramid() -> None:
    geo = geometry(9)
    assert sum(geo.row_masks) == geo.full_mask == 2**45 - 1
    assert [bin(mask).count("1") for mask in geo.row_masks] == list(range(1, 10))
