<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title><?= $this->e($title) ?> | <?= $this->e($shop) ?></title></head>
<body>
<header><h1><?= $this->e($shop) ?></h1><nav><a href="/">Home</a> <a href="/products">Products</a></nav></header>
<main>
<?= $content ?>
</main>
<footer>&copy; <?= $this->e($shop) ?></footer>
</body>
</html>
